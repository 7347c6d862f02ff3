import { pickText } from '../../src-main/common/pick-words.ts';
import type { RunPick } from '../../src-main/model/stored.ts';
import { expect, test } from './fixtures';

// History names each finished run's answer — its pick (or, undecided, the one leading), goodput and
// p99 — not its fastest cell: in Chromium against `rightsize serve`, after a small real run, the
// row says what the run's own answer page says.
const MATRIX = {
  apps: ['hello'], modes: ['cluster'], workers: [1, 2], cpuMillicores: [1000], memoryMb: [256],
  load: { model: 'closed', connections: [20] }, durationSec: 3, warmupSec: 0, repetitions: 1, order: 'fixed', settleBudgetPct: 0, verify: false,
};
/** As long as a name may be (200 characters): History cuts it rather than push goodput and p99 out of the window. */
const NAME = `history pick e2e ${'with a name far longer than the table has room for '.repeat(4)}`.slice(0, 200);

test('History shows the pick of a finished run, and — while one runs', async ({ page, served }) => {
  test.setTimeout(300_000); // a run may queue for the lab beside the shared lanes
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(served.loginUrl);
  const call = async <T>(name: string, input: unknown): Promise<T> => {
    const res = await page.request.post(`${served.url}/api/call/${name}`, { data: input });
    const body = (await res.json()) as { ok: boolean; value?: T; error?: { message: string } };
    if (!body.ok) throw new Error(`${name}: ${body.error?.message}`);
    return body.value as T;
  };
  const { runId } = await call<{ runId: number }>('runs.start', { matrix: MATRIX, name: NAME });
  await page.goto(`${served.url}/#/history`);
  const row = page.getByTestId('history-row').filter({ hasText: `#${runId} ${NAME}` });
  // Running: no answer yet.
  await expect(row.getByTestId('history-pick')).toHaveText('—');

  await expect.poll(async () => (await call<{ status: string }>('runs.get', { runId })).status, { timeout: 240_000, intervals: [1000] }).toBe('completed');
  const rec = await call<{ headline: { state: string; key: string } | null; configurations: { key: string; mode: string; workers: number; rps: { mean: number } | null }[] }>('runs.recommend', { runId });
  const list = await call<{ runs: { id: number; pick: RunPick | null; bestRps: number | null }[] }>('runs.list', {});
  const pick = list.runs.find((r) => r.id === runId)!.pick!;
  // The list's pick is the answer's own: the configuration and state its headline names.
  const named = rec.configurations.find((c) => c.key === rec.headline!.key)!;
  expect(pick).toMatchObject({ state: rec.headline!.state, mode: named.mode, workers: named.workers });

  await page.reload();
  await expect(row.getByTestId('history-pick')).toHaveText(pickText(pick));
  await expect(row.getByTestId('history-pick')).toContainText(`cluster×${named.workers} on 1 CPU / 256 MB`);
  if (pick.state === 'undecided') await expect(row.getByTestId('history-pick')).toContainText('leading:');
  await expect(row.getByTestId('history-goodput')).toHaveText(new RegExp(`^(≥ )?${Math.round(named.rps!.mean).toLocaleString('en-US')}$`));
  await expect(page.getByRole('columnheader', { name: 'answer' })).toBeVisible();
  await expect(page.getByRole('columnheader', { name: /best/ })).toHaveCount(0);
  // At 1280 × 800 the 200-character name is cut (whole on hover) and the last columns stay in the window.
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(row.getByTestId('history-name').locator('.name')).toHaveAttribute('title', `#${runId} ${NAME}`);
  for (const name of ['goodput req/s', 'p99']) {
    const box = (await page.getByRole('columnheader', { name, exact: true }).boundingBox())!;
    expect(box.x + box.width, name).toBeLessThanOrEqual(1280);
  }
  expect(errors).toEqual([]);
});
