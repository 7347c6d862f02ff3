import { cli } from '../helpers/cli.ts';
import { expect, test } from './fixtures';

// Deploy snippets as a user meets them, in Chromium against `rightsize serve` with the real engine:
// a small real run (hello, cluster × 1 and × 2, 3 s each), its answer page, Copy for the
// recommendation and for a cell picked by hand, read back from the real clipboard, and compared
// with what `rightsize report RUN --emit KIND [--cell N]` prints from the same store. The run verifies
// its answer (the matrix's default): the snippets say what was run exactly as emitted.
const MATRIX = {
  apps: ['hello'], modes: ['cluster'], workers: [1, 2], cpuMillicores: [1000], memoryMb: [256],
  load: { model: 'closed', connections: [20] }, durationSec: 3, warmupSec: 0, repetitions: 1, order: 'fixed', settleBudgetPct: 0,
};

test('copy the recommended configuration and a picked cell as PM2, Kubernetes and Compose snippets', async ({ page, context, served }) => {
  test.setTimeout(300_000); // a run may queue for the lab beside the shared lanes
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: served.url });
  await page.goto(served.loginUrl); // trades the token for the cookie the API calls below carry

  // (The test files are typed without the DOM library: the browser's navigator is reached through globalThis.)
  const readClipboard = (): Promise<string> => page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText());
  const call = async <T>(name: string, input: unknown): Promise<T> => {
    const res = await page.request.post(`${served.url}/api/call/${name}`, { data: input });
    const body = (await res.json()) as { ok: boolean; value?: T; error?: { message: string } };
    if (!body.ok) throw new Error(`${name}: ${body.error?.message}`);
    return body.value as T;
  };
  const { runId } = await call<{ runId: number }>('runs.start', { matrix: MATRIX, name: 'deploy e2e' });
  await expect.poll(async () => (await call<{ status: string }>('runs.get', { runId })).status, { timeout: 240_000, intervals: [1000] }).toBe('completed');

  await page.goto(`${served.url}/#/runs/${runId}/report`);
  const text = page.getByTestId('deploy-text');
  await expect(text).toHaveAttribute('data-kind', 'pm2');
  await expect(text).toContainText(`// Rightsize run ${runId} "deploy e2e"`);

  // Copy by mouse: the real clipboard holds exactly what the page shows and what the CLI prints.
  const copy = page.getByTestId('deploy-copy');
  await copy.click();
  // The status stays; the button's "Copied ✓" reverts after a moment, so it is not what the test waits on.
  await expect(page.getByTestId('deploy-status')).toHaveText('Copied the PM2 snippet to the clipboard.');
  const pm2 = await readClipboard();
  expect(pm2).toBe(await text.textContent());
  const pm2Cli = await cli(['--data-dir', served.dataDir, 'report', String(runId), '--emit', 'pm2']);
  expect(pm2Cli.code, pm2Cli.stderr).toBe(0);
  expect(pm2).toBe(pm2Cli.stdout);
  expect(pm2).toMatch(/instances: [12],\n\s+exec_mode: "cluster",/);
  // The run verified its answer: the snippet says how that went, never silently.
  expect(pm2).toMatch(/Verified: ran|Not verified: nothing passed|Unverified: its verification/);

  // Pick the cell that is not the recommendation, then copy its Kubernetes snippet with the keyboard only.
  const pick = page.getByTestId('deploy-pick');
  let other = '';
  for (const o of await pick.locator('option').all()) {
    const [value, label] = [(await o.getAttribute('value')) ?? '', (await o.textContent()) ?? ''];
    if (value !== '' && !label.includes('repetition of the recommendation')) other = value;
  }
  expect(other).not.toBe('');
  await pick.selectOption(other);
  await expect(text).toContainText('one measured cell, not the recommendation');
  await page.getByTestId('deploy-tab-pm2').focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('tab', { name: 'Kubernetes' })).toBeFocused();
  await expect(text).toHaveAttribute('data-kind', 'kubernetes');
  await page.getByTestId('deploy-copy').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('deploy-status')).toHaveText('Copied the Kubernetes snippet to the clipboard.');
  const k8s = await readClipboard();
  const cellNumber = Number(other) + 1;
  const k8sCli = await cli(['--data-dir', served.dataDir, 'report', String(runId), '--emit', 'kubernetes', '--cell', String(cellNumber)]);
  expect(k8sCli.code, k8sCli.stderr).toBe(0);
  expect(k8s).toBe(k8sCli.stdout);
  expect(k8s).toContain('    cpu: "1000m"\n    memory: "256Mi"');
  await expect(page.getByText(`rightsize report ${runId} --emit pm2|kubernetes|compose --cell ${cellNumber}`)).toBeVisible();

  // "Deploy…" on the (only) row goes back to the recommendation; Compose from there.
  await page.getByTestId('deploy-row').first().click();
  await expect(page.getByRole('heading', { name: 'Deploy it' })).toBeFocused();
  await expect(text).not.toContainText('one measured cell');
  await page.getByTestId('deploy-tab-compose').click();
  await page.getByTestId('deploy-copy').click();
  await expect(page.getByTestId('deploy-status')).toHaveText('Copied the Docker Compose snippet to the clipboard.');
  const compose = await readClipboard();
  expect(compose).toBe((await cli(['--data-dir', served.dataDir, 'report', String(runId), '--emit', 'compose'])).stdout);
  expect(errors).toEqual([]);
});
