import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import Apps from '../../src-renderer/routes/Apps.svelte';
import { fromUserApp, toDefinition } from '../../src-renderer/lib/app-form.ts';
import type { AppCheck, AppInfo, ImportOutcome, ImportRequestsInput, UserApp } from '../../src-main/contract/api.ts';
import { userAppInfo as info } from '../../src-main/apps/app-info.ts';
import { importHandlers } from '../../src-main/service/import-requests.ts';
import { fakeEngine, up } from './setup.ts';

// The Apps form with request mixes: a weight and a route name per request row, a saved app's sequences kept whole
// through an edit, and a HAR or access log imported as rows (the engine's real importer behind the faked transport).

const DIR = join(import.meta.dirname, '../fixtures/import');
const fixture = (name: string): string => readFileSync(join(DIR, name), 'utf8');

/** A login flow: its token captured from the first step's answer, sent by the second. */
const login = {
  sequence: [
    { method: 'POST' as const, path: '/login', body: '{"user":"a"}', capture: { token: { json: '$.token' } } },
    { method: 'GET' as const, path: '/me', headers: { authorization: 'Bearer {{token}}' } },
  ],
  weight: 1,
};
const shop: UserApp = {
  name: 'shop',
  description: '',
  port: 8080,
  health: '/health',
  env: {},
  requests: [
    { method: 'GET', path: '/products/{{zipf 1 5000 1.1}}', weight: 6, name: 'product' },
    login,
    { method: 'POST', path: '/cart', body: '{}', weight: 3 },
  ],
  source: { kind: 'folder', dir: '/srv/shop', args: [] },
};

let mine: AppInfo[];
const called = (name: string) => fakeEngine.calls.filter((c) => c.name === name);
const input = <T>(name: string, i = -1): T => called(name).at(i)!.input as T;
const type = (testid: string, value: string) => fireEvent.input(screen.getByTestId(testid), { target: { value } });
const value = (testid: string): string => (screen.getByTestId(testid) as HTMLInputElement).value;

beforeEach(() => {
  mine = [];
  fakeEngine.answers['apps.list'] = () => mine;
  fakeEngine.answers['apps.importRequests'] = (i: ImportRequestsInput): ImportOutcome =>
    importHandlers()['apps.importRequests'](i);
  fakeEngine.answers['apps.update'] = ({ app }: { app: UserApp }) => ((mine = [info(app)]), mine[0]!);
});

async function edit(app: UserApp): Promise<void> {
  mine = [info(app)];
  render(Apps, { props: { status: up } });
  await vi.waitFor(() => expect(screen.getByTestId(`app-row-${app.name}`)).toBeTruthy());
  await fireEvent.click(screen.getByTestId(`app-edit-${app.name}`));
}

/** Picks a file in the import's file input, as a person would. */
async function pick(name: string, text: string): Promise<void> {
  const file = new File([text], name, { type: 'text/plain' });
  await fireEvent.change(screen.getByTestId('app-import-file'), { target: { files: [file] } });
}

describe('request rows of a mix', () => {
  it('sends a weight and a route name as typed, and shows the engine’s problems with them on their row', async () => {
    fakeEngine.answers['apps.add'] = ({ app }: { app: UserApp }) =>
      info({ ...app, description: '', env: {}, health: '/' });
    fakeEngine.answers['apps.check'] = (): AppCheck => ({
      ok: false,
      notes: [],
      problems: [
        { path: 'requests.1.weight', message: 'a weight is above 0' },
        { path: 'requests.0.name', message: 'a route name has at most 120 characters' },
      ],
    });
    render(Apps, { props: { status: up } });
    await vi.waitFor(() => expect(screen.getByTestId('user-apps-empty')).toBeTruthy());
    await fireEvent.click(screen.getByTestId('app-add'));
    await type('app-name', 'shop');
    await type('app-dir', '/srv/shop');
    await type('app-port', '8080');
    await type('app-request-path-0', '/products/{{int 1 5000}}');
    await type('app-request-weight-0', '6');
    await type('app-request-name-0', 'product');
    await fireEvent.click(screen.getByTestId('app-request-add'));
    await type('app-request-path-1', '/cart');
    await type('app-request-weight-1', '0');
    expect(screen.getByTestId('app-requests-hint').textContent).toContain('{{zipf 1 5000 1.1}}');

    await fireEvent.click(screen.getByTestId('app-check'));
    await vi.waitFor(() =>
      expect(within(screen.getByTestId('app-request-1')).getByTestId('app-problem').textContent).toBe(
        'weight: a weight is above 0',
      ),
    );
    expect(screen.getByTestId('app-request-weight-1').getAttribute('aria-invalid')).toBe('true');
    expect(within(screen.getByTestId('app-request-0')).getByTestId('app-problem').textContent).toBe(
      'name: a route name has at most 120 characters',
    );
    expect(screen.getByTestId('app-request-name-0').getAttribute('aria-invalid')).toBe('true');

    await type('app-request-weight-1', '1.5');
    await fireEvent.click(screen.getByTestId('app-save'));
    await vi.waitFor(() => expect(called('apps.add')).toHaveLength(1));
    expect(input<{ app: UserApp }>('apps.add').app.requests).toEqual([
      { method: 'GET', path: '/products/{{int 1 5000}}', weight: 6, name: 'product' },
      { method: 'GET', path: '/cart', weight: 1.5 },
    ]);
  });

  it('round-trips weights, names, a sequence and a capture through the form unchanged', () => {
    const withCapture = {
      ...shop,
      requests: [...shop.requests, { method: 'GET' as const, path: '/x', capture: { id: { header: 'Location' } } }],
    };
    expect(toDefinition(fromUserApp(withCapture)).app.requests).toEqual(withCapture.requests);
  });

  it('shows a saved sequence as one row and saves it unchanged after an edit; Remove leaves it out', async () => {
    await edit(shop);
    expect(screen.getByTestId('app-sequence-words-1').textContent).toBe(
      'sequence, weight 1: POST /login (takes token from $.token) → GET /me',
    );
    expect(value('app-request-weight-0')).toBe('6');
    expect(value('app-request-name-0')).toBe('product');
    expect(screen.queryByTestId('app-request-1')).toBeNull(); // the sequence's steps are not request rows
    await type('app-request-weight-2', '4');
    await fireEvent.click(screen.getByTestId('app-save'));
    await vi.waitFor(() => expect(called('apps.update')).toHaveLength(1));
    expect(input<{ app: UserApp }>('apps.update').app.requests).toEqual([
      shop.requests[0],
      login,
      { ...shop.requests[2], weight: 4 },
    ]);

    await vi.waitFor(() =>
      expect(screen.getByTestId('apps-notice').textContent).toContain('Saved the changes to shop'),
    );
    await vi.waitFor(() => expect(called('apps.list')).toHaveLength(2));
    await new Promise((res) => setTimeout(res, 0)); // the list as reloaded
    await fireEvent.click(screen.getByTestId('app-edit-shop'));
    expect(value('app-request-weight-2')).toBe('4');
    await fireEvent.click(screen.getByTestId('app-sequence-remove-1'));
    expect(screen.queryByTestId('app-sequence-1')).toBeNull();
    await fireEvent.click(screen.getByTestId('app-save'));
    await vi.waitFor(() => expect(called('apps.update')).toHaveLength(2));
    expect(input<{ app: UserApp }>('apps.update').app.requests).toEqual([
      shop.requests[0],
      { ...shop.requests[2], weight: 4 },
    ]);
  });
});

describe('importing requests', () => {
  it('shows the mix an access log makes, re-reads it keeping static assets, and fills the rows with it', async () => {
    await edit(shop);
    await pick('access.log', fixture('access.log'));
    const dialog = await vi.waitFor(() => screen.getByTestId('import-dialog'));
    await vi.waitFor(() => expect(within(dialog).getByTestId('import-route-0')).toBeTruthy());
    const first = input<ImportRequestsInput>('apps.importRequests');
    expect(first).toEqual({ text: fixture('access.log'), fileName: 'access.log' });
    const outcome = importHandlers()['apps.importRequests'](first);
    if (!outcome.ok) throw new Error(outcome.problem);
    const total = outcome.routes.reduce((a, r) => a + r.weight, 0);
    expect(
      within(dialog)
        .getAllByTestId(/^import-route-/)
        .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    ).toEqual(
      outcome.routes.map((r) => [r.route, String(r.weight), `${((r.weight / total) * 100).toFixed(1)} %`, r.example]),
    );
    expect(outcome.dropped.static).toBeGreaterThan(0);
    expect(within(dialog).getByTestId('import-dropped').textContent).toContain(
      `Dropped ${outcome.dropped.static} static asset`,
    );
    expect(dialog.textContent).toContain('the sequence stays');
    // Nothing changes until the mix is used.
    expect(value('app-request-path-0')).toBe('/products/{{zipf 1 5000 1.1}}');

    await fireEvent.click(within(dialog).getByTestId('import-keep-static'));
    await vi.waitFor(() => expect(called('apps.importRequests')).toHaveLength(2));
    expect(input<ImportRequestsInput>('apps.importRequests')).toEqual({ ...first, keepStatic: true });
    const withStatic = importHandlers()['apps.importRequests']({ ...first, keepStatic: true });
    if (!withStatic.ok) throw new Error(withStatic.problem);
    await vi.waitFor(() =>
      expect(within(dialog).getAllByTestId(/^import-route-/)).toHaveLength(withStatic.routes.length),
    );
    expect(withStatic.routes.length).toBeGreaterThan(outcome.routes.length);

    await fireEvent.click(within(dialog).getByTestId('import-use'));
    expect(screen.queryByTestId('import-dialog')).toBeNull();
    withStatic.requests.forEach((r, i) => {
      expect(value(`app-request-path-${i}`)).toBe(r.path);
      expect(value(`app-request-weight-${i}`)).toBe(String(r.weight));
      expect(value(`app-request-name-${i}`)).toBe(r.name);
    });
    // The imported rows replace the request rows; the sequence stays, after them.
    const n = withStatic.requests.length;
    expect(screen.getByTestId(`app-sequence-words-${n}`).textContent).toContain('POST /login');
    expect(screen.queryByTestId(`app-request-${n + 1}`)).toBeNull();
    await type('app-request-weight-0', '100'); // editable before saving
    await fireEvent.click(screen.getByTestId('app-save'));
    await vi.waitFor(() => expect(called('apps.update')).toHaveLength(1));
    expect(input<{ app: UserApp }>('apps.update').app.requests).toEqual([
      { ...withStatic.requests[0], weight: 100 },
      ...withStatic.requests.slice(1),
      login,
    ]);
  });

  it('shows the problem of a file it cannot read, naming the line, and changes nothing', async () => {
    await edit(shop);
    await pick('malformed.log', fixture('malformed.log'));
    const problem = await vi.waitFor(() => screen.getByTestId('import-problem'));
    expect(problem.textContent).toMatch(/^line 3: /);
    expect((screen.getByTestId('import-use') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.click(screen.getByTestId('import-cancel'));
    expect(screen.queryByTestId('import-dialog')).toBeNull();
    expect(value('app-request-path-0')).toBe('/products/{{zipf 1 5000 1.1}}');
    expect(value('app-request-weight-2')).toBe('3');
    expect(screen.getByTestId('app-sequence-1')).toBeTruthy();
    await fireEvent.click(screen.getByTestId('app-save'));
    await vi.waitFor(() => expect(called('apps.update')).toHaveLength(1));
    expect(input<{ app: UserApp }>('apps.update').app.requests).toEqual(shop.requests);
  });

  it('says why when the engine refuses the call (a file over the cap), and changes nothing', async () => {
    fakeEngine.answers['apps.importRequests'] = () => {
      throw Object.assign(new Error('x'), {
        data: { code: 'INVALID_INPUT', message: 'Invalid input for apps.importRequests: text: the file is over 20 MB' },
      });
    };
    await edit(shop);
    await pick('big.har', '{"log": {"entries": []}}');
    await vi.waitFor(() =>
      expect(screen.getByTestId('import-problem').textContent).toContain('the file is over 20 MB'),
    );
    expect(value('app-request-path-0')).toBe('/products/{{zipf 1 5000 1.1}}');
  });
});
