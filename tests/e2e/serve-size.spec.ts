import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, ROOT, test } from './fixtures';

// Auto-size in Chromium against `rightsize serve` with the real engine: the Builder's Auto-size
// mode, the engine's own problems at their fields, a refused start, and a tiny real search watched
// live whose path the run page then shows.
const EXPRESS = path.resolve(ROOT, 'tests/fixtures/express-app');

/** A contract call from the page, as the UI makes it (same origin, the session's cookie). */
type Answer = { ok: boolean; value?: unknown; error?: { code: string; message: string } };
async function call(page: Page, name: string, input: unknown): Promise<Answer> {
  return page.evaluate<Answer, readonly [string, unknown]>(async ([n, i]) => (await fetch(`/api/call/${n}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(i) })).json() as Promise<Answer>, [name, input] as const);
}

const countText = (page: Page) => page.getByTestId('size-count');

test('Auto-size: the engine checks the form field by field, and a refused start says why at the field', async ({ page, served }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(served.loginUrl);
  await expect(page.getByRole('heading', { name: 'New experiment' })).toBeVisible();
  await page.getByTestId('builder-mode-size').check();
  await expect(page).toHaveURL(/#\/size$/);
  await expect(page.getByTestId('size-form')).toBeVisible();
  await expect(page.getByTestId('cell-count')).toHaveCount(0);
  // The defaults, checked by the engine: its budget against the grid over the same bounds (250–1000m × 128–512 MB × 1–4 workers).
  const budget = /^\s*at most 12 cells instead of a (\d+)-cell grid, about \d+m\d\ds\s*$/;
  await expect(countText(page)).toHaveText(budget);
  const grid = Number(budget.exec((await countText(page).textContent())!)![1]);
  expect(grid).toBeGreaterThan(12 * 10);
  // A reload keeps the mode.
  await page.reload();
  await expect(page.getByTestId('size-form')).toBeVisible();

  // Wrong values: each problem at its own field, Start off.
  await page.getByTestId('size-p99').fill('0');
  await page.getByTestId('size-workers-min').fill('6');
  await page.getByTestId('size-duration').fill('2');
  await page.getByTestId('size-mode-cluster').uncheck();
  await expect(page.getByTestId('size-p99-error')).toHaveText('0 is not a p99 limit above 0 ms (at most 120000)');
  await expect(page.getByTestId('size-workers-error')).toHaveText('min 6 is above max 4');
  await expect(page.getByTestId('size-timing-error')).toContainText('2 is not a whole number of seconds from 5');
  await expect(page.getByTestId('size-modes-error')).toHaveText('needs at least one launch mode');
  await expect(countText(page)).toContainText('fix the problems above');
  await expect(page.getByTestId('size-start')).toBeDisabled();
  await expect(page.getByTestId('size-general-error')).toHaveCount(0);
  // Fixed, the budget comes back.
  await page.getByTestId('size-p99').fill('50');
  await page.getByTestId('size-workers-min').fill('1');
  await page.getByTestId('size-duration').fill('8');
  await page.getByTestId('size-mode-cluster').check();
  await expect(countText(page)).toContainText(`at most 12 cells instead of a ${grid}-cell grid`);
  await expect(page.getByRole('alert')).toHaveCount(0);

  // A refused start: the user's app passes the check, is then removed elsewhere, and Start is refused at the app field.
  const added = await call(page, 'apps.add', { app: { name: 'shop', source: { kind: 'folder', dir: EXPRESS }, port: 8080, health: '/health', requests: [{ path: '/items/3' }] } });
  expect(added.ok, JSON.stringify(added.error)).toBe(true);
  await page.reload();
  // The form checks an edit 150 ms later: the check of the form with shop must have answered before shop is removed,
  // else it answers after, Start is disabled by it and the click below waits for nothing.
  const shopChecked = page.waitForResponse((r) => r.url().endsWith('/api/call/size.validate') && (r.request().postData() ?? '').includes('"shop"'));
  await page.getByTestId('size-app-shop').check();
  await shopChecked;
  await expect(countText(page)).toContainText('instead of a');
  await expect(page.getByTestId('size-start')).toBeEnabled();
  expect((await call(page, 'apps.remove', { name: 'shop' })).ok).toBe(true);
  await page.getByTestId('size-start').click();
  await expect(page.getByTestId('size-app-error')).toContainText('unknown app "shop"');
  await expect(page.getByTestId('size-start-error')).toContainText('refused');
  await expect(page).toHaveURL(/#\/size$/); // nothing started
  expect((await call(page, 'runs.list', {})).value).toMatchObject({ total: 0 });
  expect(errors).toEqual([]);
});

test('Auto-size: a tiny real search, watched live, and the path it took on the run page', async ({ page, served }) => {
  test.setTimeout(300_000); // a run may queue for the lab beside the shared lanes
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${served.loginUrl}`);
  await page.goto(`${served.url}/#/size`);
  await expect(page.getByTestId('size-form')).toBeVisible();
  // hello at 200 req/s, p99 ≤ 100 ms: two cells at most, short ones.
  await page.getByTestId('size-app-hello').check();
  await page.getByTestId('size-rate').fill('200');
  await page.getByTestId('size-p99').fill('100');
  await page.getByTestId('size-cpu-min').fill('500');
  await page.getByTestId('size-cpu-max').fill('1000');
  await page.getByTestId('size-memory-max').fill('256');
  await page.getByTestId('size-workers-max').fill('2');
  await page.getByTestId('size-max-cells').fill('2');
  await page.getByTestId('size-duration').fill('5');
  await page.getByTestId('size-warmup').fill('0');
  await page.getByTestId('size-name').fill('e2e search');
  // 500–1000m × 128–256 MB × 1–2 workers, at the engine's steps.
  const budget = /^\s*at most 2 cells instead of a (\d+)-cell grid, about \d+s\s*$/;
  await expect(countText(page)).toHaveText(budget);
  const grid = Number(budget.exec((await countText(page).textContent())!)![1]);
  expect(grid).toBeGreaterThanOrEqual(2 * 2 * 2);
  await page.getByTestId('size-start').click();

  // Live, as a matrix run: the phase in words, then the cells as they finish.
  await expect(page).toHaveURL(/#\/live\/\d+$/);
  const runId = Number(/live\/(\d+)/.exec(page.url())![1]);
  await expect(page.getByTestId('phase')).toHaveText(/\S/);
  await expect(page.getByTestId('open-run')).toBeVisible({ timeout: 240_000 });
  await expect(page.getByTestId('run-status')).toContainText(/completed/);

  // The run page: the path, step by step, each step linked to its cell.
  await page.getByTestId('open-run').click();
  await expect(page).toHaveURL(new RegExp(`#/runs/${runId}$`));
  const path = page.getByTestId('search-path');
  await expect(path).toBeVisible();
  const steps = path.getByTestId('search-step');
  const n = await steps.count();
  expect(n).toBeGreaterThanOrEqual(1);
  expect(n).toBeLessThanOrEqual(2);
  for (let i = 0; i < n; i++) {
    await expect(steps.nth(i)).toHaveAttribute('data-outcome', /^(meets|misses|undecided|failed)$/);
    await expect(steps.nth(i)).toContainText(/cluster worker/);
  }
  await expect(path.getByTestId('search-status')).toHaveText(/^(Found|None within the bounds|Undecided)$/);
  await expect(path.getByTestId('search-words')).toHaveText(/\S/);
  await expect(path.getByTestId('search-economy')).toHaveText(`${n} cell${n === 1 ? '' : 's'} instead of a grid of ${grid}.`);
  // Every step is a stored cell: the table has one row per step, and a step selects its row.
  const rows = page.getByTestId('cells').locator('tbody tr');
  await expect(rows).toHaveCount(n);
  await steps.nth(n - 1).getByTestId('search-step-cell').click();
  await expect(rows.nth(n - 1)).toHaveClass(/selected/);
  // What the run page says is what the engine stored.
  const stored = (await call(page, 'runs.get', { runId })).value as { search: { steps: { outcome: string }[]; gridCells: number; spec: { maxCells: number; rate: number } } };
  expect(stored.search.steps.map((s) => s.outcome)).toEqual(await steps.evaluateAll((els) => els.map((e) => e.getAttribute('data-outcome'))));
  expect(stored.search).toMatchObject({ gridCells: grid, spec: { maxCells: 2, rate: 200 } });
  expect(errors).toEqual([]);
});
