import path from 'node:path';
import { expect, ROOT, test } from './fixtures';

// Bring your own app, in Chromium against `rightsize serve` with the real engine: the engine's
// problems at their fields, a real Express project added (its PM2 ecosystem file read), its image
// built with the log live, picked in the matrix builder and run, and removed.
const EXPRESS = path.resolve(ROOT, 'tests/fixtures/express-app');

test('add an app with problems, then a real project: check, save, build, run, remove', async ({ page, served }) => {
  test.setTimeout(300_000); // a run may queue for the lab beside the shared lanes
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(served.loginUrl);
  await page.getByTestId('nav-apps').click();
  await expect(page).toHaveURL(/#\/apps$/);
  await expect(page.getByRole('heading', { name: 'Apps', exact: true })).toBeVisible();
  await expect(page.getByTestId('builtin-apps').getByTestId('app-row-hello')).toBeVisible();
  await expect(page.getByTestId('user-apps-empty')).toBeVisible();
  const rows = page.locator('[data-testid^="app-row-"]');
  const before = await rows.count();

  // (a) A folder that does not exist: the engine says so at the folder field, and nothing is saved.
  await page.getByTestId('app-add').click();
  const form = page.getByTestId('app-form');
  await expect(form).toBeVisible();
  await page.getByTestId('app-name').fill('ghost');
  await page.getByTestId('app-dir').fill('/nonexistent/rightsize-e2e-project');
  await page.getByTestId('app-port').fill('8080');
  await page.getByTestId('app-check').click();
  const dirProblem = form.locator('[data-testid="app-problem"][data-path="source.dir"]');
  await expect(dirProblem).toHaveText('the folder /nonexistent/rightsize-e2e-project does not exist');
  await expect(page.getByTestId('app-dir')).toHaveAttribute('aria-invalid', 'true');
  await page.getByTestId('app-save').click();
  await expect(page.getByTestId('app-save-error')).toContainText('nothing was saved');
  await expect(dirProblem).toBeVisible();
  await expect(page.getByTestId('user-apps-empty')).toBeVisible();
  // A port that is not a number goes to the engine as typed, and its message shows at the port.
  await page.getByTestId('app-port').fill('abc');
  await page.getByTestId('app-check').click();
  await expect(form.locator('[data-testid="app-problem"][data-path="port"]')).toHaveText('the port must be a number');
  await page.getByTestId('app-cancel').click();
  await expect(form).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('user-apps-empty')).toBeVisible();
  await expect(rows).toHaveCount(before);

  // (b) The real Express project, no entry file: the engine reads its ecosystem.config.js.
  await page.getByTestId('app-add').click();
  await page.getByTestId('app-name').fill('shop');
  await page.getByTestId('app-dir').fill(EXPRESS);
  await page.getByTestId('app-port').fill('8080');
  await page.getByTestId('app-health').fill('/health');
  await page.getByTestId('app-request-path-0').fill('/items/3');
  await page.getByTestId('app-check').click();
  await expect(page.getByTestId('app-notes')).toContainText('read ecosystem.config.js (app "shop"): entry server.js, args --greeting hello');
  await expect(page.getByTestId('app-verdict')).toContainText('ready to save');
  await expect(form.getByTestId('app-problem')).toHaveCount(0);
  await page.getByTestId('app-save').click();
  await expect(form).toHaveCount(0);
  const row = page.getByTestId('app-row-shop');
  await expect(row).toContainText('folder');
  await expect(row).toContainText(EXPRESS);
  await expect(row).toContainText('8080');
  await expect(row).toContainText('GET /items/3');
  await expect(rows).toHaveCount(before + 1);

  // Build its image now, with the log live (npm ci inside the build the first time; cached after).
  await page.getByTestId('app-build-shop').click();
  await expect(page.getByTestId('build-log')).toContainText(/Successfully tagged|up to date/, { timeout: 120_000 });
  await expect(page.getByTestId('build-result')).toContainText(/Built rightsize|is up to date/);
  await expect(page.getByTestId('app-build-shop')).toBeEnabled();

  // (c) The matrix builder offers it beside the built-in apps, tagged as the user's.
  await page.getByRole('link', { name: 'New experiment' }).click();
  await expect(page.getByTestId('app-shop')).toBeVisible();
  await expect(page.getByTestId('app-tag-shop')).toHaveText('yours');
  await page.getByTestId('app-shop').check();
  await page.getByTestId('app-json').uncheck(); // the builder starts from json (the quick preset's app)
  await expect(page.getByTestId('cell-count')).toContainText('2 cells'); // workers 1 and 2 in cluster mode
  // …and sizes it: both cells run against the user's Express server.
  await page.getByTestId('duration').fill('2');
  await page.getByTestId('warmup').fill('0');
  // The grid alone (settling and verification are tested in serve-deploy.spec.ts).
  await page.getByTestId('settle-budget').fill('0');
  await page.getByTestId('verify').uncheck();
  await page.getByTestId('start').click();
  await expect(page).toHaveURL(/#\/live\/\d+$/);
  await expect(page.getByTestId('run-status')).toContainText('completed', { timeout: 180_000 });
  await expect(page.getByTestId('run-status')).toContainText('2 of 2 cells');
  await expect.poll(async () => Number(await page.getByTestId('chart-summary').getAttribute('data-points'))).toBe(2);

  // (d) Removed after the inline confirmation, and gone.
  await page.getByTestId('nav-apps').click();
  await page.getByTestId('app-remove-shop').click();
  await page.getByTestId('app-remove-confirm-shop').click();
  await expect(page.getByTestId('app-row-shop')).toHaveCount(0);
  await expect(page.getByTestId('user-apps-empty')).toBeVisible();
  await page.reload();
  await expect(page.getByTestId('user-apps-empty')).toBeVisible();
  await expect(rows).toHaveCount(before);
  await page.getByRole('link', { name: 'New experiment' }).click();
  await expect(page.getByTestId('app-hello')).toBeVisible();
  await expect(page.getByTestId('app-shop')).toHaveCount(0);
  expect(errors).toEqual([]);
});
