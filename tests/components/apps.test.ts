import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import Apps from '../../src-renderer/routes/Apps.svelte';
import Builder from '../../src-renderer/routes/Builder.svelte';
import { toDefinition, emptyForm, fromUserApp } from '../../src-renderer/lib/app-form.ts';
import type { AppCheck, AppInfo, UserApp } from '../../src-main/contract/api.ts';
import { userAppInfo } from '../../src-main/apps/app-info.ts';
import { engineError, fakeEngine, up } from './setup.ts';

const hello: AppInfo = { name: 'hello', description: 'plain text', stresses: 'HTTP', port: 3000, health: '/health', requests: [{ method: 'GET', path: '/' }], env: {}, builtIn: true, kind: 'builtin', fixedWorkers: false };

/** AppInfo as the Lab lists a user app. */
const info = userAppInfo;
const shop: UserApp = { name: 'shop', description: '', port: 8080, health: '/health', env: { NODE_ENV: 'production' }, requests: [{ method: 'GET', path: '/items/3' }, { method: 'POST', path: '/items', body: '{"name":"pen"}', status: 201 }], source: { kind: 'folder', dir: '/srv/shop', args: [] } };

let mine: AppInfo[];
const called = (name: string) => fakeEngine.calls.filter((c) => c.name === name);
const input = <T,>(name: string, i = -1): T => called(name).at(i)!.input as T;

beforeEach(() => {
  mine = [];
  fakeEngine.answers['apps.list'] = () => [hello, ...mine];
});

async function openAdd(): Promise<HTMLElement> {
  render(Apps, { props: { status: up } });
  await vi.waitFor(() => expect(screen.getByTestId('user-apps-empty')).toBeTruthy());
  await fireEvent.click(screen.getByTestId('app-add'));
  return screen.getByTestId('app-form');
}
const type = (testid: string, value: string) => fireEvent.input(screen.getByTestId(testid), { target: { value } });
/** The problems a field points at (aria-describedby): rendered by it, and read out with it. */
const problemsBy = (testid: string): string[] =>
  (screen.getByTestId(testid).getAttribute('aria-describedby') ?? '')
    .split(' ')
    .filter(Boolean)
    .flatMap((ref) => [...document.getElementById(ref)!.querySelectorAll('[data-testid="app-problem"]')])
    .map((p) => p.textContent!.trim());

describe('the Apps screen', () => {
  it('lists built-in apps read-only and says when the user has none', async () => {
    render(Apps, { props: { status: up } });
    await vi.waitFor(() => expect(screen.getByTestId('app-row-hello')).toBeTruthy());
    expect(within(screen.getByTestId('app-row-hello')).queryByRole('button')).toBeNull();
    expect(screen.getByTestId('user-apps-empty').textContent).toContain('Add app');
  });

  it('sends the HTTP/2 it serves and shows the engine’s problem with it by the select', async () => {
    fakeEngine.answers['apps.check'] = (): AppCheck => ({
      ok: false, notes: [], problems: [{ path: 'http2', message: '"h2" is HTTP/2 over TLS: the app serves HTTPS itself too (--tls)' }],
    });
    await openAdd();
    await type('app-name', 'shop');
    await fireEvent.change(screen.getByTestId('app-http2'), { target: { value: 'h2' } });
    await fireEvent.click(screen.getByTestId('app-check'));
    await vi.waitFor(() => expect(problemsBy('app-http2')).toEqual(['"h2" is HTTP/2 over TLS: the app serves HTTPS itself too (--tls)']));
    expect(input<{ app: Record<string, unknown> }>('apps.check').app).toMatchObject({ name: 'shop', http2: 'h2' });
    expect(input<{ app: Record<string, unknown> }>('apps.check').app).not.toHaveProperty('tls');
  });

  it('shows each problem from apps.check next to its field, and the notes once it is fine', async () => {
    fakeEngine.answers['apps.check'] = (): AppCheck => ({
      ok: false,
      notes: [],
      problems: [
        { path: 'source.dir', message: 'the folder /nope does not exist' },
        { path: 'port', message: 'the port must be a number' },
        { path: 'source.entry', message: 'there is no file main.js in /nope' },
        { path: 'requests.0.path', message: 'a path starts with /' },
        { path: 'env.1BAD', message: 'an environment variable name: letters, digits and _' },
        { path: '(app)', message: 'something about the whole app' },
      ],
    });
    await openAdd();
    await type('app-name', 'shop');
    await type('app-dir', '/nope');
    await type('app-port', 'abc');
    await type('app-env', '1BAD=x');
    await type('app-request-path-0', 'items');
    await fireEvent.click(screen.getByTestId('app-check'));
    await vi.waitFor(() => expect(problemsBy('app-dir')).toEqual(['the folder /nope does not exist']));
    expect(problemsBy('app-port')).toEqual(['the port must be a number']);
    expect(problemsBy('app-entry')).toEqual(['there is no file main.js in /nope']);
    expect(problemsBy('app-name')).toEqual([]);
    expect(problemsBy('app-env')).toEqual(['1BAD: an environment variable name: letters, digits and _']);
    expect(within(screen.getByTestId('app-request-0')).getByTestId('app-problem').textContent).toBe('path: a path starts with /');
    expect(screen.getAllByTestId('app-problem').map((p) => p.dataset.path)).toContain('(app)'); // unclaimed ones are not lost
    // The field points at its problem for assistive technology, and is marked invalid.
    const dir = screen.getByTestId('app-dir');
    expect(dir.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(dir.getAttribute('aria-describedby')!)!.textContent).toContain('does not exist');
    // What was sent: the port as typed (not a number), the folder, no entry (the ecosystem file decides).
    expect(input<{ app: Record<string, unknown> }>('apps.check').app).toEqual({
      name: 'shop', port: 'abc', health: '/', env: { '1BAD': 'x' }, requests: [{ method: 'GET', path: 'items' }], source: { kind: 'folder', dir: '/nope', args: [] },
    });

    fakeEngine.answers['apps.check'] = (): AppCheck => ({ ok: true, problems: [], notes: ['read ecosystem.config.js (app "shop"): entry server.js, args --greeting hello'], resolved: { entry: 'server.js', args: ['--greeting', 'hello'], env: {}, version: '1.2.0', description: 'shop api' } });
    await type('app-port', '8080');
    await fireEvent.click(screen.getByTestId('app-check'));
    await vi.waitFor(() => expect(screen.getByTestId('app-notes').textContent).toContain('read ecosystem.config.js'));
    expect(screen.queryAllByTestId('app-problem')).toEqual([]);
    expect(screen.getByTestId('app-verdict').textContent).toContain('ready to save');
    expect(input<{ app: { port: unknown } }>('apps.check').app.port).toBe(8080);
    await type('app-health', '/health');
    expect(screen.getByTestId('app-verdict').textContent).toContain('Changed since the last check');
  });

  it('keeps the form as typed and shows the fields when the engine refuses to save (APP_INVALID)', async () => {
    fakeEngine.answers['apps.add'] = () => {
      throw engineError({ code: 'APP_INVALID', message: 'The app is not valid; nothing was saved:\n  - source.dir: the folder /nope does not exist', fields: [{ path: 'source.dir', message: 'the folder /nope does not exist' }] });
    };
    await openAdd();
    await type('app-name', 'shop');
    await type('app-dir', '/nope');
    await type('app-port', '8080');
    await fireEvent.click(screen.getByTestId('app-save'));
    await vi.waitFor(() => expect(screen.getByTestId('app-save-error').textContent).toBe('The app is not valid; nothing was saved:'));
    expect(problemsBy('app-dir')).toEqual(['the folder /nope does not exist']);
    expect((screen.getByTestId('app-dir') as HTMLInputElement).value).toBe('/nope');
    expect((screen.getByTestId('app-name') as HTMLInputElement).value).toBe('shop');
    expect(screen.getByTestId('user-apps-empty')).toBeTruthy();
    expect(called('apps.list')).toHaveLength(1); // nothing saved, nothing to reload
  });

  it('refuses locally what it cannot read (a header line without a colon) without calling the engine', async () => {
    fakeEngine.answers['apps.add'] = () => info(shop);
    await openAdd();
    await type('app-name', 'shop');
    await type('app-request-headers-0', 'no colon here');
    await fireEvent.click(screen.getByTestId('app-save'));
    await vi.waitFor(() => expect(screen.getByTestId('app-save-error').textContent).toContain('Not saved'));
    expect(within(screen.getByTestId('app-request-0')).getByTestId('app-problem').textContent).toContain('write Name: value');
    expect(called('apps.add')).toHaveLength(0);
  });

  it('keeps a quoted start argument whole', async () => {
    let sent: UserApp | undefined;
    fakeEngine.answers['apps.add'] = ({ app }: { app: UserApp }) => ((sent = app), info({ ...app, description: '', env: {}, health: '/' }));
    await openAdd();
    await type('app-name', 'shop');
    await type('app-args', `--greeting "two words"`);
    await fireEvent.click(screen.getByTestId('app-save'));
    await vi.waitFor(() => expect(sent?.source).toMatchObject({ kind: 'folder', args: ['--greeting', 'two words'] }));
  });

  it('refuses an unclosed quote in the start arguments, without calling the engine', async () => {
    await openAdd();
    await type('app-name', 'shop2');
    await type('app-args', `--greeting "open`);
    await fireEvent.click(screen.getByTestId('app-save'));
    await vi.waitFor(() => expect(screen.getByTestId('app-save-error').textContent).toContain('Not saved'));
    expect(screen.getAllByTestId('app-problem').some((p) => p.dataset.path === 'source.args' && /unclosed "/.test(p.textContent ?? ''))).toBe(true);
    expect(called('apps.add')).toHaveLength(0);
  });

  it('adds an image app and refreshes the list', async () => {
    fakeEngine.answers['apps.add'] = ({ app }: { app: UserApp }) => {
      const a = info({ ...app, description: app.description ?? '', env: app.env ?? {}, health: app.health ?? '/' });
      mine.push(a);
      return a;
    };
    await openAdd();
    await type('app-name', 'web');
    await fireEvent.click(screen.getByTestId('app-kind-image'));
    await type('app-image', 'my/web:1');
    expect((screen.getByTestId('app-workers-env') as HTMLInputElement).value).toBe('WEB_CONCURRENCY');
    await fireEvent.click(screen.getByTestId('app-workers-fixed'));
    expect((screen.getByTestId('app-workers-env') as HTMLInputElement).disabled).toBe(true);
    await type('app-port', '3000');
    await type('app-request-path-0', '/items/1');
    await type('app-request-status-0', '200');
    await type('app-request-headers-0', 'Accept: application/json\n\nX-Trace: 1');
    await fireEvent.click(screen.getByTestId('app-request-add'));
    await fireEvent.change(screen.getByTestId('app-request-method-1'), { target: { value: 'POST' } });
    await type('app-request-path-1', '/items');
    await type('app-request-body-1', '{"name":"pen"}');
    await fireEvent.click(screen.getByTestId('app-save'));
    await vi.waitFor(() => expect(screen.getByTestId('app-row-web')).toBeTruthy());
    expect(input<{ app: unknown }>('apps.add').app).toEqual({
      name: 'web',
      port: 3000,
      health: '/',
      source: { kind: 'image', image: 'my/web:1', workersEnv: null },
      requests: [
        { method: 'GET', path: '/items/1', status: 200, headers: { Accept: 'application/json', 'X-Trace': '1' } },
        { method: 'POST', path: '/items', body: '{"name":"pen"}' },
      ],
    });
    expect(called('apps.list')).toHaveLength(2);
    expect(screen.queryByTestId('app-form')).toBeNull();
    expect(screen.getByTestId('apps-notice').textContent).toContain('Added web');
    const row = screen.getByTestId('app-row-web');
    expect(row.textContent).toContain('my/web:1');
    expect(row.textContent).toContain('fixed workers');
    expect(row.textContent).toContain('GET /items/1 → 200 · POST /items');
  });

  it('edits an app: the form is filled from its definition, checks as a replacement and saves with apps.update', async () => {
    mine = [info(shop)];
    fakeEngine.answers['apps.check'] = (): AppCheck => ({ ok: true, problems: [], notes: [] });
    fakeEngine.answers['apps.update'] = ({ app }: { app: UserApp }) => {
      mine = [info({ ...shop, ...app })];
      return mine[0]!;
    };
    render(Apps, { props: { status: up } });
    await vi.waitFor(() => expect(screen.getByTestId('app-row-shop')).toBeTruthy());
    await fireEvent.click(screen.getByTestId('app-edit-shop'));
    expect((screen.getByTestId('app-dir') as HTMLInputElement).value).toBe('/srv/shop');
    expect((screen.getByTestId('app-port') as HTMLInputElement).value).toBe('8080');
    expect((screen.getByTestId('app-env') as HTMLTextAreaElement).value).toBe('NODE_ENV=production');
    expect((screen.getByTestId('app-request-status-1') as HTMLInputElement).value).toBe('201');
    await fireEvent.click(screen.getByTestId('app-check'));
    await vi.waitFor(() => expect(called('apps.check')).toHaveLength(1));
    expect(input<{ replacing: string }>('apps.check').replacing).toBe('shop');
    await type('app-name', 'shop-2');
    await fireEvent.click(screen.getByTestId('app-save'));
    await vi.waitFor(() => expect(screen.getByTestId('app-row-shop-2')).toBeTruthy());
    expect(input<{ name: string; app: { name: string; requests: unknown[] } }>('apps.update')).toMatchObject({ name: 'shop', app: { name: 'shop-2', requests: shop.requests } });
  });

  it('removes an app only after the inline confirmation', async () => {
    mine = [info(shop)];
    fakeEngine.answers['apps.remove'] = ({ name }: { name: string }) => {
      mine = mine.filter((a) => a.name !== name);
      return { removed: true };
    };
    render(Apps, { props: { status: up } });
    await vi.waitFor(() => expect(screen.getByTestId('app-row-shop')).toBeTruthy());
    await fireEvent.click(screen.getByTestId('app-remove-shop'));
    expect(called('apps.remove')).toHaveLength(0);
    await fireEvent.click(screen.getByRole('button', { name: 'Keep' }));
    expect(screen.queryByTestId('app-remove-confirm-shop')).toBeNull();
    await fireEvent.click(screen.getByTestId('app-remove-shop'));
    await fireEvent.click(screen.getByTestId('app-remove-confirm-shop'));
    await vi.waitFor(() => expect(screen.queryByTestId('app-row-shop')).toBeNull());
    expect(input<{ name: string }>('apps.remove').name).toBe('shop');
    expect(screen.getByTestId('user-apps-empty')).toBeTruthy();
  });

  it('builds an image with its log live, then says the result and unsubscribes', async () => {
    mine = [info(shop)];
    let finish!: (v: { tag: string; built: boolean; seconds: number }) => void;
    fakeEngine.answers['apps.build'] = () => new Promise((r) => (finish = r));
    render(Apps, { props: { status: up } });
    await vi.waitFor(() => expect(screen.getByTestId('app-row-shop')).toBeTruthy());
    await fireEvent.click(screen.getByTestId('app-build-shop'));
    await vi.waitFor(() => expect([...fakeEngine.subs.values()].map((s) => [s.stream, s.input])).toEqual([['apps.buildLog', { name: 'shop' }]]));
    expect((screen.getByTestId('app-build-shop') as HTMLButtonElement).disabled).toBe(true);
    for (let i = 0; i < 320; i++) fakeEngine.emit('apps.buildLog', { name: 'shop', line: `Step ${i}` });
    await vi.waitFor(() => expect(screen.getByTestId('build-log').textContent).toContain('Step 319'));
    expect(screen.getByTestId('build-log').textContent).not.toContain('Step 19\n'); // the last 300 lines are kept
    expect(screen.getByTestId('build-log').textContent!.split('\n')).toHaveLength(300);
    finish({ tag: 'rightsize-app-shop:abc', built: true, seconds: 12.34 });
    await vi.waitFor(() => expect(screen.getByTestId('build-result').textContent).toContain('Built rightsize-app-shop:abc in 12.3 s'));
    await vi.waitFor(() => expect(fakeEngine.subs.size).toBe(0), { timeout: 3000 });
  });

  it('shows a failed build’s message', async () => {
    mine = [info(shop)];
    fakeEngine.answers['apps.build'] = () => {
      throw engineError({ code: 'BUILD_FAILED', message: 'The image of shop did not build: npm ci failed\nnpm ERR! 404' });
    };
    render(Apps, { props: { status: up } });
    await vi.waitFor(() => expect(screen.getByTestId('app-row-shop')).toBeTruthy());
    await fireEvent.click(screen.getByTestId('app-build-shop'));
    await vi.waitFor(() => expect(screen.getByTestId('build-error').textContent).toContain('npm ERR! 404'));
    expect(screen.getByTestId('build-result').textContent).toContain('The build failed');
  });

  it('keeps Build off while a run is in progress', async () => {
    mine = [info(shop)];
    render(Apps, { props: { status: { ...up, activeRunId: 3 } } });
    await vi.waitFor(() => expect(screen.getByTestId('app-row-shop')).toBeTruthy());
    expect((screen.getByTestId('app-build-shop') as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText('Build is off: run 3 is in progress.')).toBeTruthy();
  });
});

describe('the form’s definition', () => {
  it('round-trips a saved definition through the form', () => {
    expect(toDefinition(fromUserApp(shop)).app).toEqual({ name: 'shop', port: 8080, health: '/health', env: { NODE_ENV: 'production' }, requests: shop.requests, source: { kind: 'folder', dir: '/srv/shop', args: [] } });
    const f = { ...emptyForm(), name: 'x', dir: '/a', entry: 'index.js', args: ' --port  9000 ', port: ' 12.5 ' };
    expect(toDefinition(f).app).toMatchObject({ port: 12.5, source: { kind: 'folder', dir: '/a', entry: 'index.js', args: ['--port', '9000'] } });
  });

  it('round-trips what it serves: HTTPS with h2 beside it, h2c, and HTTP/1.1 (no field)', () => {
    for (const served of [{ tls: true, http2: 'h2' as const }, { tls: false, http2: 'h2c' as const }]) {
      const f = fromUserApp({ ...shop, ...served });
      expect(f.http2).toBe(served.http2);
      expect(toDefinition(f).app).toMatchObject({ ...(served.tls ? { tls: true } : {}), http2: served.http2 });
    }
    expect(toDefinition(fromUserApp(shop)).app).not.toHaveProperty('http2');
  });
});

/** An app read from a Compose file: built with its Dockerfile, a database with an init script and a cache. */
const composed: UserApp = {
  name: 'shop', description: '', port: 3000, health: '/healthz', env: {}, requests: [{ method: 'GET', path: '/' }],
  source: { kind: 'dockerfile', dir: '/srv/shop', dockerfile: 'Dockerfile', buildArgs: { NODE_IMAGE: 'node:20-slim' }, command: ['node', 'server.js'], workersEnv: 'WEB_CONCURRENCY' },
  dependencies: [
    { name: 'db', image: 'postgres:16', env: { POSTGRES_PASSWORD: 'secret' }, port: 5432, cpuMillis: 1000, memoryMb: 256,
      mounts: [{ source: '/srv/shop/db/init.sql', target: '/docker-entrypoint-initdb.d/init.sql' }], offline: 'postgres',
      healthcheck: { test: ['CMD-SHELL', 'pg_isready -U shop'], intervalMs: 1000, timeoutMs: 3000, retries: 60, startPeriodMs: 0 } },
    { name: 'cache', image: 'redis:7', env: {}, port: 6379, cpuMillis: 500, memoryMb: 512, mounts: [] },
  ],
};

describe('the form’s dependencies and Dockerfile', () => {
  it('round-trips them: what the form does not edit (mounts, the command, the offline image) is kept', () => {
    const { description: _d, env: _e, ...sent } = composed; // empty ones are left to the engine's defaults
    expect(toDefinition(fromUserApp(composed))).toEqual({ app: sent, problems: [] });
  });

  it('edits an app read from Compose: its dependencies shown as rows, one added, all saved with apps.update', async () => {
    mine = [info(composed)];
    fakeEngine.answers['apps.update'] = ({ app }: { app: UserApp }) => ((mine = [info(app)]), mine[0]!);
    render(Apps, { props: { status: up } });
    await vi.waitFor(() => expect(screen.getByTestId('app-row-shop')).toBeTruthy());
    expect(screen.getByTestId('app-row-shop').textContent).toContain('Dockerfile');
    await fireEvent.click(screen.getByTestId('app-edit-shop'));
    expect((screen.getByTestId('app-kind-dockerfile') as HTMLInputElement).checked).toBe(true);
    expect((screen.getByTestId('app-build-args') as HTMLTextAreaElement).value).toBe('NODE_IMAGE=node:20-slim');
    expect((screen.getByTestId('app-dep-health-0') as HTMLInputElement).value).toBe('pg_isready -U shop');
    expect((screen.getByTestId('app-dep-cpus-1') as HTMLInputElement).value).toBe('0.5');
    expect(screen.getByTestId('app-dep-kept-0').textContent).toBe('Kept as read: 1 mounted file, offline postgres image where none is pulled.');
    await fireEvent.click(screen.getByTestId('app-dep-add'));
    await type('app-dep-name-2', 'search');
    await type('app-dep-image-2', 'opensearch:2');
    await type('app-dep-env-2', 'discovery.type=single-node\nOPENSEARCH_JAVA_OPTS=-Xms256m');
    await type('app-dep-cpus-2', '1.5');
    await fireEvent.click(screen.getByTestId('app-save'));
    await vi.waitFor(() => expect(called('apps.update')).toHaveLength(1));
    const saved = input<{ app: UserApp }>('apps.update').app;
    expect(saved.source).toEqual(composed.source);
    expect(saved.dependencies!.slice(0, 2)).toEqual(composed.dependencies);
    expect(saved.dependencies![2]).toEqual({ name: 'search', image: 'opensearch:2', env: { 'discovery.type': 'single-node', OPENSEARCH_JAVA_OPTS: '-Xms256m' }, cpuMillis: 1500 });
  });

  it('a dependency field the engine refuses is shown in its row', async () => {
    mine = [info(composed)];
    fakeEngine.answers['apps.check'] = (): AppCheck => ({ ok: false, notes: [], problems: [{ path: 'dependencies.1.image', message: 'cache: redis:7 is not on this machine and could not be pulled' }] });
    render(Apps, { props: { status: up } });
    await vi.waitFor(() => expect(screen.getByTestId('app-row-shop')).toBeTruthy());
    await fireEvent.click(screen.getByTestId('app-edit-shop'));
    await fireEvent.click(screen.getByTestId('app-check'));
    await vi.waitFor(() => expect(within(screen.getByTestId('app-dep-1')).getByTestId('app-problem').textContent).toBe('image: cache: redis:7 is not on this machine and could not be pulled'));
    expect(screen.getByTestId('app-dep-image-1').getAttribute('aria-invalid')).toBe('true');
  });
});

describe('the Builder’s app picker', () => {
  it('tags user apps and says what does not apply to an image app', async () => {
    const web = info({ name: 'web', description: '', port: 3000, health: '/', env: {}, requests: [{ method: 'GET', path: '/' }], source: { kind: 'image', image: 'my/web:1', workersEnv: null } });
    fakeEngine.answers['apps.list'] = () => [hello, info(shop), web];
    fakeEngine.answers['presets.list'] = () => [];
    fakeEngine.answers['matrix.validate'] = () => ({ ok: true, cells: 1, etaSec: 13, problems: [] });
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(screen.getByTestId('app-tag-web').textContent).toBe('image'));
    expect(screen.getByTestId('app-tag-shop').textContent).toBe('yours');
    expect(screen.queryByTestId('app-tag-hello')).toBeNull();
    expect(screen.queryByTestId('app-hint-web')).toBeNull();
    await fireEvent.click(screen.getByTestId('app-web'));
    const hint = screen.getByTestId('app-hint-web').textContent!;
    expect(hint).toContain('launch modes do not apply');
    expect(hint).toContain('workers dimension does not apply');
  });
});
