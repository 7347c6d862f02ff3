import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { APP_INDEX_URL, isAppUrl, rendererHandler } from '../../src-main/electron/app-protocol.ts';
import { resolveAsset } from '../../src-main/transports/static-files.ts';

// The app:// protocol handler and the file resolution under it are plain Node: tested here as
// they run in Electron's main process (the Electron binary cannot be downloaded on this machine).
let root: string;
let outside: string;

beforeAll(() => {
  const top = mkdtempSync(path.join(tmpdir(), 'rightsize-protocol-'));
  root = path.join(top, 'renderer');
  outside = path.join(top, 'secret.txt');
  mkdirSync(path.join(root, 'assets'), { recursive: true });
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><div id="app"></div>');
  writeFileSync(path.join(root, 'assets', 'index-abc.js'), 'export const x = 1;');
  writeFileSync(path.join(root, 'assets', 'index-abc.css'), 'body{}');
  writeFileSync(path.join(root, 'assets', 'logo.svg'), '<svg/>');
  writeFileSync(path.join(root, 'assets', 'blob.wasm'), 'x');
  writeFileSync(path.join(root, 'assets', '%2e%2e'), 'a file literally named %2e%2e');
  writeFileSync(outside, 'not for the renderer');
  symlinkSync(outside, path.join(root, 'assets', 'leak.txt'));
});

describe('resolveAsset', () => {
  it.each([
    ['/', 'index.html', 'text/html; charset=utf-8'],
    ['/index.html', 'index.html', 'text/html; charset=utf-8'],
    ['/assets/index-abc.js', 'assets/index-abc.js', 'text/javascript; charset=utf-8'],
    ['/assets/index-abc.css', 'assets/index-abc.css', 'text/css; charset=utf-8'],
    ['/assets/logo.svg', 'assets/logo.svg', 'image/svg+xml'],
    ['//assets//index-abc.js', 'assets/index-abc.js', 'text/javascript; charset=utf-8'],
    ['/assets/%252e%252e', 'assets/%2e%2e', undefined], // decoded once: a name, not a step up
  ])('%s → %s', (url, file, type) => {
    const a = resolveAsset(root, url);
    if (type === undefined) {
      expect(a).toMatchObject({ ok: false, status: 404 }); // no extension the UI ships
      return;
    }
    expect(a).toEqual({ ok: true, file: path.join(root, file), type });
  });

  it.each([
    ['/../secret.txt', 403],
    ['/assets/../../secret.txt', 403],
    ['/%2e%2e/secret.txt', 403],
    ['/assets/%2E%2E/%2e%2e/secret.txt', 403],
    ['/./index.html', 403],
    ['/..%2fsecret.txt', 403],
    ['/..%5csecret.txt', 400],
    ['/assets\\..\\..\\secret.txt', 400],
    ['/index.html%00.js', 400],
    ['/%zz', 400],
    ['/%', 400],
    ['/C:/Windows/win.ini', 403],
    ['/c:%5cWindows', 400],
    [`/${outside}`, 404], // an absolute path given as a URL path stays inside the folder: no such file
    ['/assets/blob.wasm', 404],
    ['/assets/missing.js', 404],
    ['/assets', 404],
    ['/assets/leak.txt', 403], // a link out of the folder
  ])('%s is refused with %i', (url, status) => {
    expect(resolveAsset(root, url)).toMatchObject({ ok: false, status });
  });
});

describe('the app:// handler', () => {
  const handler = (): ((r: Request) => Promise<Response>) => rendererHandler(root);

  it('serves index.html at app://rightsize/index.html with its type, the CSP and nosniff', async () => {
    const res = await handler()(new Request(APP_INDEX_URL));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toContain('<div id="app">');
  });

  it('serves a module script as JavaScript (the reason for the scheme)', async () => {
    const res = await handler()(new Request('app://rightsize/assets/index-abc.js'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  });

  it.each([
    ['app://rightsize/%2e%2e/%2e%2e/secret.txt', 404], // the URL parser folds the dots: inside the folder, no such file
    ['app://rightsize/assets/leak.txt', 403],
    ['app://rightsize/nope.js', 404],
    ['app://rightsize/assets/blob.wasm', 404],
    ['app://rightsize/%E0%A4%A', 400],
    ['app://rightsize/a%00.js', 400],
    ['app://other/index.html', 404],
    ['file:///etc/passwd', 404],
  ])('%s → %i', async (url, status) => {
    const res = await handler()(new Request(url));
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  });

  it('answers HEAD without a body and refuses other methods', async () => {
    const head = await handler()(new Request(APP_INDEX_URL, { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await handler()(new Request(APP_INDEX_URL, { method: 'POST', body: 'x' }))).status).toBe(405);
  });

  it('recognises only its own origin as a place to navigate to', () => {
    expect(isAppUrl('app://rightsize/index.html#/runs/3')).toBe(true);
    expect(isAppUrl('app://other/index.html')).toBe(false);
    expect(isAppUrl('https://example.com/')).toBe(false);
    expect(isAppUrl('file:///index.html')).toBe(false);
    expect(isAppUrl('not a url')).toBe(false);
  });
});
