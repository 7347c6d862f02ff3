import { readFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import { parseCsvRows } from '../helpers/report.ts';
import { expect, test } from './fixtures';

// The whole loop a user goes through, in Chromium against `rightsize serve` with the real engine:
// build a 2-cell matrix with the sliders, run it, watch it live, find it in history, export.
test('build a matrix, run it live, find it in history, export CSV and PNG', async ({ page, served }) => {
  test.setTimeout(300_000); // a run may queue for the lab beside the shared lanes
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(served.loginUrl);
  await expect(page.getByRole('heading', { name: 'New experiment' })).toBeVisible();
  // This host has 2 cores: the builder says they cannot keep the UI, the load and the target apart.
  await expect(page.getByTestId('cores-warning')).toContainText('This host has 2 cores');

  // A preset stays shown in the picker after it filled the form, until something is changed.
  await page.getByTestId('preset').selectOption('quick');
  await expect(page.getByTestId('cell-count')).toContainText('cells');
  // The estimate says its phases, so the count never grows unannounced (engine/estimate.ts through matrix.validate).
  await expect(page.getByTestId('estimate-plan')).toContainText('a grid of 6 cells, then settling (0–3 cells, only while undecided) and verification (1–3 cells)');
  await expect(page.getByTestId('preset')).toHaveValue('quick');
  await page.getByTestId('duration').fill('4');
  await expect(page.getByTestId('preset')).toHaveValue('');
  await expect(page.getByTestId('preset').locator('option:checked')).toHaveText(/custom \(changed from/);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'New experiment' })).toBeVisible();

  // CPU: keep 1.00 CPU, add 0.50 CPU with the slider.
  await page.getByTestId('cpu-range').fill('500');
  await expect(page.getByTestId('cpu-current')).toHaveText('0.50 CPU');
  await page.getByTestId('cpu-add').click();
  // Memory: 128 MB instead of 256 MB.
  await page.getByTestId('memory-range').fill('128');
  await page.getByTestId('memory-add').click();
  await page.getByRole('button', { name: 'Remove 256 MB' }).click();
  // One worker count, short cells.
  await page.getByTestId('worker-2').click();
  await page.getByTestId('duration').fill('3');
  await page.getByTestId('warmup').fill('0');
  // The grid alone: no settling, no verification (serve-deploy.spec.ts verifies); a bad budget is named.
  await page.getByTestId('settle-budget').fill('-5');
  await expect(page.getByRole('alert').filter({ hasText: '-5 is not a percentage from 0 to 1000' })).toHaveCount(1);
  await expect(page.getByTestId('start')).toBeDisabled();
  await page.getByTestId('settle-budget').fill('0');
  await page.getByTestId('verify').uncheck();
  await expect(page.getByTestId('cell-count')).toContainText('2 cells');

  // Invalid input is explained inline and blocks Start; fixing it unblocks.
  await page.getByTestId('worker-1').click();
  // On the workers field itself (any other field's "needs at least one value" would not do).
  await expect(page.getByTestId('workers-error')).toHaveText('needs at least one value');
  await expect(page.getByRole('alert').filter({ hasText: 'needs at least one value' })).toHaveCount(1);
  await expect(page.getByTestId('start')).toBeDisabled();
  await page.getByTestId('worker-1').click();
  await expect(page.getByTestId('start')).toBeEnabled();

  await page.getByTestId('start').click();
  await expect(page).toHaveURL(/#\/live\/\d+$/);
  const runId = Number(/live\/(\d+)/.exec(page.url())![1]);
  // From the first moment: what the run is doing, an ETA that is not 0, and no empty charts.
  await expect(page.getByTestId('phase')).toHaveText(/\S/);
  await expect(page.getByTestId('eta')).not.toHaveText(/ETA 0s/);
  await expect(page.getByTestId('chart-latency').or(page.getByTestId('charts-waiting'))).toHaveCount(1);

  // Live: per-second points arrive in the latency and throughput charts.
  await expect.poll(async () => Number(await page.getByTestId('chart-latency').getAttribute('data-points')), { timeout: 150_000 }).toBeGreaterThan(0);
  await expect.poll(async () => Number(await page.getByTestId('chart-rps').getAttribute('data-points'))).toBeGreaterThan(0);
  await expect(page.getByTestId('current-cell')).toContainText('req/s');
  // …and the summary fills in as cells finish.
  await expect(page.getByTestId('open-run')).toBeVisible({ timeout: 180_000 });
  await expect(page.getByTestId('run-status')).toContainText('completed');
  // The end of the run shows its answer in place: the headline with its state, and a way to the whole answer.
  await expect(page.getByTestId('live-answer').getByTestId('headline')).toHaveAttribute('data-state', /^(confident|equivalent|undecided)$/);
  // One chart per CPU / memory pair the answer decided: both, unless a 3 s cell was left out as unstable (its pair
  // then has nothing to decide); the answer page below must agree with whatever the analysis said.
  const livePairs = page.getByTestId('live-answer').getByTestId('answer-chart-pair');
  await expect(livePairs.first()).toBeVisible();
  const pairs = await livePairs.count();
  expect(pairs === 1 || pairs === 2).toBe(true);
  await expect(page.getByTestId('live-answer').getByTestId('open-answer')).toHaveAttribute('href', `#/runs/${runId}/report`);
  await expect.poll(async () => Number(await page.getByTestId('chart-summary').getAttribute('data-points'))).toBe(2);

  // History lists it; its page has the cells.
  await page.getByTestId('nav-history').click();
  const row = page.getByTestId('history-row').filter({ hasText: `#${runId}` });
  await expect(row).toContainText('completed');
  await row.getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`#/runs/${runId}$`));
  const tableRows = page.getByTestId('cells').locator('tbody tr');
  await expect(tableRows).toHaveCount(2);

  // CSV of the cells: one row per cell, matching the table.
  const [csvDownload] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-cells').click()]);
  expect(csvDownload.suggestedFilename()).toBe(`rightsize-run-${runId}-cells.csv`);
  const csv = parseCsvRows(readFileSync((await csvDownload.path())!, 'utf8'));
  expect(csv).toHaveLength(3);
  const header = csv[0]!;
  const col = (line: string[], name: string): string => line[header.indexOf(name)]!;
  expect(csv.slice(1).map((l) => col(l, 'cpu_millicores')).sort()).toEqual(['1000', '500']);
  expect(csv.slice(1).every((l) => col(l, 'status') === 'ok' && Number(col(l, 'rps_mean')) > 0)).toBe(true);
  const tableCpu = (await tableRows.locator('td:nth-child(5)').allTextContents()).map((t) => t.replace('m', '')).sort();
  expect(tableCpu).toEqual(['1000', '500']);

  // PNG of a chart: decodes, has the canvas size, and is not blank (white background plus lines).
  const [pngDownload] = await Promise.all([page.waitForEvent('download'), page.getByTestId('chart-summary-rps').getByRole('button', { name: /PNG/ }).click()]);
  expect(pngDownload.suggestedFilename()).toBe(`run-${runId}-rps-by-workers.png`);
  const png = PNG.sync.read(readFileSync((await pngDownload.path())!));
  expect(png.width).toBeGreaterThan(300);
  expect(png.height).toBeGreaterThan(200);
  let white = 0;
  let ink = 0;
  for (let i = 0; i < png.data.length; i += 4) {
    const [r, g, b, a] = [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!, png.data[i + 3]!];
    if (a === 255 && r > 250 && g > 250 && b > 250) white++;
    else if (a === 255) ink++;
  }
  expect(white / (png.width * png.height)).toBeGreaterThan(0.5); // an opaque white background
  expect(ink).toBeGreaterThan(500); // title, axes, legend and the line

  // Selecting a cell shows its per-second series.
  await tableRows.nth(1).click();
  await expect.poll(async () => Number(await page.getByTestId('chart-cell-latency').getAttribute('data-points'))).toBeGreaterThan(0);

  // The answer, in words, and as a self-contained HTML report.
  await page.getByTestId('open-report').click();
  // The headline first, with its state: one configuration decided across both pairs (one repetition of
  // each on 3 s cells may well leave it undecided: then it names the leading contender, never a pick).
  await expect(page.getByTestId('headline')).toHaveAttribute('data-state', /^(confident|equivalent|undecided)$/);
  const state = (await page.getByTestId('headline').getAttribute('data-state'))!;
  // The first bullet names the configuration the answer deploys (or leads with): the headline names the same.
  const first = (await page.getByTestId('answer').locator('li').first().textContent()) ?? '';
  const where = /^1 cluster worker on (0\.5 CPU \/ 128 MB|1 CPU \/ 128 MB):/.exec(first)?.[1];
  expect(where, first).toBeTruthy();
  const perCpu = where!.startsWith('0.5') ? '2 per CPU' : '1 per CPU';
  await expect(page.getByTestId('headline')).toContainText(
    state === 'undecided' ? `between 1 cluster worker on ${where}` : `Pick: 1 cluster worker on ${where} — ${state}`,
  );
  await expect(page.getByTestId('answer-chart-pair')).toHaveCount(pairs);
  // Then a few bullets; the full sentences and the methods are folded away until asked for.
  expect(await page.getByTestId('answer').locator('li').count()).toBeLessThanOrEqual(4);
  // Each pair's own pick is the seeds' question, labelled as such when the answer spans both.
  const given = pairs === 2 ? 'If you are given' : 'On';
  const fullSentence = page.getByTestId('reasoning').getByText(`${given} ${where}, only 1 cluster worker (${perCpu}) was measured`);
  await expect(fullSentence).toBeHidden();
  await expect(page.getByTestId('method').first()).not.toHaveAttribute('open');
  await expect(page.getByTestId('method').filter({ hasText: 'How this was decided' }).getByText('throughput is goodput')).toBeHidden();
  await page.getByTestId('reasoning').locator('summary').click();
  await expect(fullSentence).toBeVisible();
  if (pairs === 2) await expect(page.getByTestId('reasoning')).toContainText('If you are given 1 CPU / 128 MB');
  await expect(page.getByTestId('scopes').locator('tbody tr')).toHaveCount(pairs); // one per CPU / memory pair
  // Each sentence once ("1 cluster worker", not "1 cluster worker (cluster)"), and the table fits 1280 px.
  await expect(page.getByTestId('scopes')).not.toContainText('(cluster)');
  const fit = await page.getByTestId('scopes').evaluate((t) => ({ table: t.getBoundingClientRect().right, box: t.parentElement!.clientWidth, scroll: t.parentElement!.scrollWidth, page: t.ownerDocument.documentElement.clientWidth }));
  expect(fit.scroll).toBeLessThanOrEqual(fit.box);
  expect(fit.table).toBeLessThanOrEqual(fit.page);
  // Horizontally whole: scrolled to (the answer above it may push it below the fold), it shows entire.
  const lastHeader = page.getByRole('columnheader', { name: 'flags of best' });
  await lastHeader.scrollIntoViewIfNeeded();
  await expect(lastHeader).toBeInViewport({ ratio: 1 });
  const [html] = await Promise.all([page.waitForEvent('download'), page.getByTestId('save-html').click()]);
  expect(html.suggestedFilename()).toBe(`rightsize-run-${runId}-report.html`);
  const report = readFileSync((await html.path())!, 'utf8');
  expect(report).toMatch(/^<!doctype html>/i);
  expect(report).toContain('<svg');
  expect(report).not.toMatch(/<script|src="https?:/);
  expect(errors).toEqual([]);
});

test('history has an empty state that says what to do', async ({ page, served }) => {
  await page.goto(served.loginUrl);
  await page.getByTestId('nav-history').click();
  await expect(page.getByTestId('history-empty')).toContainText('No runs yet');
});

test('engine errors are shown where they belong: a run that does not exist', async ({ page, served }) => {
  await page.goto(served.loginUrl);
  await page.goto(`${served.url}/#/runs/999`);
  await expect(page.getByRole('alert')).toContainText('There is no run 999.');
});

test('a cancelled cell is kept, marked partial, and counted in no summary; compare says why it is empty', async ({ page, served }) => {
  test.setTimeout(300_000); // a run may queue for the lab beside the shared lanes
  await page.goto(served.loginUrl);
  await expect(page.getByRole('heading', { name: 'New experiment' })).toBeVisible();
  await page.getByTestId('worker-2').click(); // one cell: json, cluster × 1
  await page.getByTestId('duration').fill('30');
  await page.getByTestId('warmup').fill('0');
  await expect(page.getByTestId('cell-count')).toContainText('1 cell');
  await page.getByTestId('start').click();
  await expect(page).toHaveURL(/#\/live\/\d+$/);
  const runId = Number(/live\/(\d+)/.exec(page.url())![1]);
  await expect(page.getByTestId('phase')).toHaveAttribute('data-phase', 'measuring', { timeout: 180_000 });
  await expect.poll(async () => Number(await page.getByTestId('chart-rps').getAttribute('data-points')), { timeout: 20_000 }).toBeGreaterThan(0);
  await page.getByTestId('cancel').click();
  await expect(page.getByTestId('run-status')).toContainText('cancelled', { timeout: 30_000 });
  await expect(page.getByTestId('partial-0')).toHaveText('partial');
  await expect(page.getByTestId('summary-waiting')).toHaveText('No cell finished with a result, so there is nothing to chart.');

  // The run's page: the partial seconds are there, said to be no result; the summary charts hold nothing.
  await page.getByTestId('open-run').click();
  await expect(page.getByTestId('cell-partial')).toContainText('was cancelled');
  await expect(page.getByTestId('summary-empty')).toContainText('No cell of this run finished with a result, so there are no summary charts');
  await expect(page.getByTestId('chart-summary-rps')).toHaveCount(0);

  await page.goto(`${served.url}/#/compare/${runId}/${runId}`);
  await expect(page.getByTestId('compare-why')).toHaveText(`Run ${runId} (cancelled) has no cell that finished with a result (1 cancelled of 1), so it has nothing to draw.`);
});
