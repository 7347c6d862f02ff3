// The renderer's own origin, app://rightsize, instead of file://. Chromium refuses module scripts
// from file:// once the packaged app's `grantFileProtocolExtraPrivileges` fuse is off, and a
// custom standard scheme also gives the page a real origin for its CSP ('self'). Plain Node: no
// electron import, so the request handling is unit-tested without the Electron binary.
import { readFile } from 'node:fs/promises';
import { RENDERER_CSP, resolveAsset } from '../transports/static-files.ts';

export const APP_SCHEME = 'app';
export const APP_HOST = 'rightsize';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_INDEX_URL = `${APP_ORIGIN}/index.html`;

/**
 * For `protocol.registerSchemesAsPrivileged`, before the app is ready: a standard, secure scheme
 * (relative URLs, an origin, module scripts, fetch) with no other powers (no service workers, no CORS bypass).
 */
export const APP_SCHEME_PRIVILEGES = {
  scheme: APP_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true },
} as const;

/** Whether a URL is one of our pages: the only place the window may navigate to. */
export function isAppUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST;
  } catch {
    return false;
  }
}

const plain = (status: number, body: string): Response =>
  new Response(`${body}\n`, {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' },
  });

/**
 * The `protocol.handle` handler serving the built renderer folder `root`: GET/HEAD of a file
 * inside it, with its MIME type and the CSP; anything else (another host, `..`, NUL, backslashes,
 * an unknown type, a missing file) is refused.
 */
export function rendererHandler(root: string): (request: Request) => Promise<Response> {
  return async (request) => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return plain(400, 'Malformed URL.');
    }
    if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return plain(404, 'Not found.');
    if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'Method not allowed.');
    const asset = resolveAsset(root, url.pathname);
    if (!asset.ok) return plain(asset.status, asset.status === 404 ? 'Not found.' : `Refused: ${asset.reason}.`);
    let body: Buffer;
    try {
      body = await readFile(asset.file);
    } catch {
      return plain(404, 'Not found.');
    }
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), {
      status: 200,
      headers: {
        'content-type': asset.type,
        'content-security-policy': RENDERER_CSP,
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-cache',
      },
    });
  };
}
