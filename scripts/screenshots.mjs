// `npm run screenshots`: real screenshots of every view for docs/ and README, taken in Debian's
// Chromium against `rightsize serve` with the real engine (runs two small matrices; ~2 minutes).
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright';

const dataDir = mkdtempSync(path.join(tmpdir(), 'rightsize-shots-'));
const serve = spawn(process.execPath, ['bin/rightsize.js', '--data-dir', dataDir, '--json', 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const { url, loginUrl } = JSON.parse(await new Promise((r) => serve.stdout.once('data', (c) => r(String(c)))));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
const shot = async (page, name) => {
  await page.screenshot({ path: `docs/screenshots/${name}.png` });
  console.log(`docs/screenshots/${name}.png`);
};
try {
  for (const scheme of ['light', 'dark']) {
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
    await page.waitForTimeout(500);
    await shot(page, 'builder');
    await page.getByTestId('start').click();
    await page.waitForURL(/#\/live\//);
    // Mid-run: a couple of cells done, the current one streaming.
    await page.waitForFunction(() => Number(document.querySelector('[data-testid=chart-summary]')?.getAttribute('data-points')) >= 2, null, { timeout: 120_000 });
    await page.waitForFunction(() => Number(document.querySelector('[data-testid=chart-latency]')?.getAttribute('data-points')) >= 6, null, { timeout: 60_000 });
    await shot(page, 'live');
    await page.getByTestId('open-run').waitFor({ timeout: 120_000 });
    // A second run of the same preset, to compare.
    await page.goto(`${url}/#/`);
    await page.getByTestId('preset').selectOption('pbkdf2-one-thread');
    await page.getByTestId('duration').fill('4');
    await page.getByTestId('warmup').fill('1');
    await page.getByTestId('mode-pm2').check();
    await page.waitForTimeout(400);
    await page.getByTestId('start').click();
    await page.waitForURL(/#\/live\//);
    await page.getByTestId('open-run').waitFor({ timeout: 180_000 });
    await page.getByTestId('open-run').click();
    await page.getByTestId('cells').locator('tbody tr').nth(2).click();
    await page.waitForTimeout(800);
    await shot(page, 'run');
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
} finally {
  await browser.close();
  serve.kill('SIGINT');
}
