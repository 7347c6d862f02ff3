// `npm run screenshots`: real screenshots of every view for docs/ and README, taken in Debian's
// Chromium against `rightsize serve` with the real engine (runs two small matrices; ~5 minutes).
// Names as arguments retake only those: `node scripts/screenshots.mjs apps` (seconds, no run), `auto-size search`.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright';

const dataDir = mkdtempSync(path.join(tmpdir(), 'rightsize-shots-'));
const serve = spawn(process.execPath, ['bin/rightsize.js', '--data-dir', dataDir, '--json', 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const { url, loginUrl } = JSON.parse(await new Promise((r) => serve.stdout.once('data', (c) => r(String(c)))));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
const only = new Set(process.argv.slice(2));
const want = (name) => only.size === 0 || only.has(name);
const shot = async (page, name) => {
  if (!want(name)) return;
  await page.screenshot({ path: `docs/screenshots/${name}.png` });
  console.log(`docs/screenshots/${name}.png`);
};
try {
  if (want('apps')) {
    // The Apps screen: one project added, a second one being checked in the form.
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    await page.goto(loginUrl);
    await page.goto(`${url}/#/apps`);
    // The Express fixture in the form, under a name.
    const fillExpress = async (name) => {
      await page.getByTestId('app-add').click();
      await page.getByTestId('app-name').fill(name);
      await page.getByTestId('app-dir').fill(path.resolve('tests/fixtures/express-app'));
      await page.getByTestId('app-port').fill('8080');
      await page.getByTestId('app-health').fill('/health');
      await page.getByTestId('app-request-path-0').fill('/items/3');
    };
    await fillExpress('shop-api');
    await page.getByTestId('app-save').click();
    await page.getByTestId('app-row-shop-api').waitFor();
    await fillExpress('shop-api-v2');
    await page.getByTestId('app-env').fill('NODE_ENV=production');
    await page.getByTestId('app-request-add').click();
    await page.getByTestId('app-request-method-1').selectOption('POST');
    await page.getByTestId('app-request-path-1').fill('/items');
    await page.getByTestId('app-request-status-1').fill('201');
    await page.getByTestId('app-request-headers-1').fill('Content-Type: application/json');
    await page.getByTestId('app-request-body-1').fill('{"name":"pen"}');
    await page.getByTestId('app-check').click();
    await page.getByTestId('app-notes').waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(300);
    // Taller than the window: the form, what the check read, and the list under it.
    const list = await page.getByTestId('user-apps').boundingBox();
    await page.screenshot({ path: 'docs/screenshots/apps.png', fullPage: true, clip: { x: 0, y: 0, width: 1280, height: Math.ceil(list.y + list.height + 12) } });
    console.log('docs/screenshots/apps.png');
    await page.close();
  }
  for (const scheme of ['light', 'dark']) {
    if (only.size && !['builder', 'live-start', 'live', 'live-end', 'run', 'answer', 'report', 'history', 'compare', 'run-dark', 'run-probe'].some(want)) break;
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: scheme });
    await page.goto(loginUrl);
    if (scheme === 'dark') {
      await page.goto(`${url}/#/history`);
      await page.getByTestId('history-row').first().waitFor();
      await page.getByTestId('history-row').first().getByRole('link').click();
      await page.getByTestId('chart-summary-rps').waitFor();
      await page.waitForTimeout(800);
      await shot(page, 'run-dark');
      break;
    }
    await page.getByTestId('preset').selectOption('pbkdf2-one-thread');
    await page.getByTestId('duration').fill('4');
    await page.getByTestId('warmup').fill('1');
    await page.getByTestId('repetitions').fill('2'); // two runs of it fit in a few minutes
    await page.waitForTimeout(500);
    await shot(page, 'builder');
    await page.getByTestId('start').click();
    await page.waitForURL(/#\/live\//);
    // The first seconds: the phase in words (images, container, warm-up), no empty charts.
    await page.getByTestId('phase').waitFor();
    await shot(page, 'live-start');
    // Mid-run: a couple of cells done, the current one streaming.
    await page.waitForFunction(() => Number(document.querySelector('[data-testid=chart-summary]')?.getAttribute('data-points')) >= 2, null, { timeout: 120_000 });
    await page.waitForFunction(() => Number(document.querySelector('[data-testid=chart-latency]')?.getAttribute('data-points')) >= 6, null, { timeout: 60_000 });
    await shot(page, 'live');
    await page.getByTestId('open-run').waitFor({ timeout: 300_000 });
    // The end of the run: its answer in place (headline, summary, chart).
    await page.getByTestId('live-answer').getByTestId('answer-chart').waitFor({ timeout: 60_000 });
    await page.waitForTimeout(800);
    await shot(page, 'live-end');
    // A second run of the same preset, to compare.
    await page.goto(`${url}/#/`);
    await page.getByTestId('preset').selectOption('pbkdf2-one-thread');
    await page.getByTestId('duration').fill('4');
    await page.getByTestId('warmup').fill('1');
    await page.getByTestId('repetitions').fill('2');
    await page.getByTestId('mode-pm2').check();
    await page.waitForTimeout(400);
    await page.getByTestId('start').click();
    await page.waitForURL(/#\/live\//);
    await page.getByTestId('open-run').waitFor({ timeout: 400_000 });
    await page.getByTestId('open-run').click();
    await page.getByTestId('cells').locator('tbody tr').nth(2).click();
    // The top of the run page: its answer chart (intervals, the pick, lower bounds) and the summary charts.
    await page.getByTestId('answer-chart').waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(800);
    await shot(page, 'run');
    if (want('run-probe')) {
      // The selected cell's runtime per worker (the runtime probe): event-loop utilization, delay, GC share.
      const probe = page.getByTestId('probe-charts');
      await probe.scrollIntoViewIfNeeded();
      await page.waitForTimeout(800);
      await probe.screenshot({ path: 'docs/screenshots/run-probe.png' });
      console.log('docs/screenshots/run-probe.png');
    }
    if (want('answer')) {
      await page.getByTestId('open-report').click();
      await page.getByTestId('answer').waitFor();
      await page.getByTestId('answer-chart').waitFor();
      await page.waitForTimeout(800);
      await shot(page, 'answer');
    }
    if (want('report')) {
      // The HTML report as a reader opens it: saved from the answer page, shown from its file.
      if (!page.url().includes('/report')) await page.getByTestId('open-report').click();
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('save-html').click()]);
      const file = path.join(dataDir, 'report.html');
      await download.saveAs(file);
      const reader = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
      await reader.goto(`file://${file}`);
      await reader.waitForTimeout(300);
      await shot(reader, 'report');
      await reader.close();
    }
    await page.goto(`${url}/#/history`);
    await page.getByTestId('history-row').nth(1).waitFor();
    await page.getByTestId('history-row').nth(0).getByRole('checkbox').check();
    await page.getByTestId('history-row').nth(1).getByRole('checkbox').check();
    await shot(page, 'history');
    await page.getByTestId('compare').click();
    await page.getByTestId('compare-rps').waitFor();
    await page.waitForTimeout(800);
    await shot(page, 'compare');
    await page.close();
  }
  if (want('run-dependency')) {
    // The built-in catalog app (PostgreSQL) at pools of 2 and 10 (the pool-vs-workers preset, once, short): a cell's
    // database CPU drawn beside the app's on the run page (~2 minutes; the offline PostgreSQL image is built if missing).
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    await page.goto(loginUrl);
    await page.getByTestId('preset').selectOption('pool-vs-workers');
    await page.getByTestId('duration').fill('4');
    await page.getByTestId('warmup').fill('1');
    await page.getByTestId('repetitions').fill('1');
    await page.waitForTimeout(400);
    await page.getByTestId('start').click();
    // The first run builds the offline PostgreSQL image before it starts (about a minute, once).
    await page.waitForURL(/#\/live\//, { timeout: 300_000 });
    await page.getByTestId('open-run').waitFor({ timeout: 600_000 });
    await page.getByTestId('open-run').click();
    // The busiest database: 8 workers with a pool of 2 (the last row of that pool, by the table's order).
    const rows = page.getByTestId('cells').locator('tbody tr');
    await rows.first().waitFor();
    // Each row's workers and settings columns.
    const cells = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.trim())));
    const at = cells.findIndex((c) => c[3] === '8' && c[4] === 'PG_POOL_SIZE=2');
    await rows.nth(at >= 0 ? at : 0).click();
    const chart = page.getByTestId('chart-cell-rps');
    await chart.scrollIntoViewIfNeeded();
    await page.waitForTimeout(800);
    // Bounding boxes are in the viewport; a full-page clip is in the page: add the scroll.
    const scrollY = await page.evaluate(() => window.scrollY);
    const box = await page.getByTestId('cells').boundingBox();
    const end = await chart.boundingBox();
    await page.screenshot({ path: 'docs/screenshots/run-dependency.png', fullPage: true, clip: { x: 0, y: Math.floor(scrollY + box.y - 40), width: 1280, height: Math.ceil(end.y + end.height - box.y + 52) } });
    console.log('docs/screenshots/run-dependency.png');
    await page.close();
  }
  if (want('apps-import')) {
    // The Apps form's import: an access log made into a weighted mix, shown to edit before it is used (seconds, no run).
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    await page.goto(loginUrl);
    await page.goto(`${url}/#/apps`);
    await page.getByTestId('app-add').click();
    await page.getByTestId('app-name').fill('shop-api');
    await page.getByTestId('app-dir').fill(path.resolve('tests/fixtures/express-app'));
    await page.getByTestId('app-import-file').setInputFiles(path.resolve('tests/fixtures/import/shop.har'));
    await page.getByTestId('import-routes').waitFor();
    await page.waitForTimeout(300);
    const box = await page.getByTestId('import-dialog').boundingBox();
    const scrollY = await page.evaluate(() => window.scrollY);
    await page.screenshot({ path: 'docs/screenshots/apps-import.png', fullPage: true, clip: { x: 0, y: Math.floor(scrollY + box.y - 16), width: 1280, height: Math.ceil(box.height + 32) } });
    console.log('docs/screenshots/apps-import.png');
    await page.close();
  }
  if (want('run-mix')) {
    // A user's API with a weighted mix and a login flow (tests/fixtures/mix-app), one short cell from the command line
    // on the same history, then its routes on the run page (~30 s).
    const cli = (args) => new Promise((resolve, reject) => {
      const p = spawn(process.execPath, ['bin/rightsize.js', '--data-dir', dataDir, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      p.stdout.on('data', (c) => (out += c));
      p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`rightsize ${args.join(' ')}: exit ${code}`))));
    });
    const mix = path.join(dataDir, 'mix.json');
    const matrix = path.join(dataDir, 'matrix.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(mix, JSON.stringify([
      { method: 'GET', path: '/products/{{zipf 1 5000 1.1}}', weight: 6, name: 'GET /products/:id' },
      { method: 'GET', path: '/search?q={{pick shoes hats socks}}', weight: 3, name: 'GET /search' },
      { method: 'POST', path: '/orders', body: '{"sku":{{int 1 50}}}', status: 201, weight: 1, name: 'POST /orders' },
      { sequence: [{ method: 'POST', path: '/login', capture: { token: { json: '$.token' } } }, { method: 'GET', path: '/me', headers: { authorization: 'Bearer {{token}}' } }], name: 'login flow' },
    ]));
    writeFileSync(matrix, JSON.stringify({ apps: ['shop'], modes: ['single'], workers: [1], cpuMillicores: [1000], memoryMb: [256], durationSec: 5, warmupSec: 1, settleBudgetPct: 0, verify: false }));
    await cli(['apps', 'add', 'shop', '--folder', path.resolve('tests/fixtures/mix-app'), '--entry', 'server.js', '--port', '8080', '--health', '/health', '--requests', mix, '--no-try']);
    const { runId } = JSON.parse(await cli(['--json', 'run', '--config', matrix]));
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    await page.goto(loginUrl);
    await page.goto(`${url}/#/runs/${runId}`);
    const rows = page.getByTestId('cells').locator('tbody tr');
    await rows.first().click();
    const routes = page.getByTestId('routes');
    await routes.scrollIntoViewIfNeeded();
    await page.waitForTimeout(500);
    const box = await routes.boundingBox();
    const scrollY = await page.evaluate(() => window.scrollY);
    await page.screenshot({ path: 'docs/screenshots/run-mix.png', fullPage: true, clip: { x: 0, y: Math.floor(scrollY + box.y - 16), width: 1280, height: Math.ceil(box.height + 32) } });
    console.log('docs/screenshots/run-mix.png');
    await page.close();
  }
  if (want('auto-size') || want('search')) {
    // Auto-size: the form (pbkdf2 at 150 req/s, p99 ≤ 100 ms), then a short real search and the path it took (~1 minute).
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    await page.goto(loginUrl);
    await page.goto(`${url}/#/size`);
    await page.getByTestId('size-app-pbkdf2').check();
    await page.getByTestId('size-rate').fill('150');
    await page.getByTestId('size-p99').fill('100');
    await page.getByTestId('size-memory-max-input').fill('256');
    await page.getByTestId('size-memory-max-input').blur();
    await page.getByTestId('size-workers-max').fill('2');
    await page.getByTestId('size-max-cells').fill('6');
    await page.getByTestId('size-duration').fill('5');
    await page.getByTestId('size-warmup').fill('1');
    await page.waitForTimeout(500);
    await shot(page, 'auto-size');
    if (want('search')) {
      await page.getByTestId('size-start').click();
      await page.waitForURL(/#\/live\//);
      await page.getByTestId('open-run').waitFor({ timeout: 300_000 });
      await page.getByTestId('open-run').click();
      await page.getByTestId('chart-search-path').waitFor();
      await page.waitForTimeout(800);
      // The path, from its heading to the end of its chart.
      const box = await page.getByTestId('search-path').boundingBox();
      await page.screenshot({ path: 'docs/screenshots/search.png', fullPage: true, clip: { x: 0, y: Math.floor(box.y - 12), width: 1280, height: Math.ceil(box.height + 24) } });
      console.log('docs/screenshots/search.png');
    }
    await page.close();
  }
} finally {
  await browser.close();
  // serve cancels any run and removes its containers on SIGINT; then its history folder goes too.
  await new Promise((resolve) => {
    serve.once('exit', resolve);
    serve.kill('SIGINT');
  });
  rmSync(dataDir, { recursive: true, force: true });
}
