import { defineConfig } from '@playwright/test';

// End-to-end: the UI through `rightsize serve` in Debian's Chromium (no browser download here), and
// the Electron app where its binary exists. One worker: runs share the machine's two cores. What a
// run makes (images, containers, temporary folders) is removed at its end (tests/helpers/global-setup.ts).
const BESIDE_LANES = process.env.RIGHTSIZE_WAIT_FOR_LAB === '1';

export default defineConfig({
  testDir: 'tests/e2e',
  globalSetup: './tests/helpers/global-setup.ts',
  workers: 1,
  // Beside the shared lanes (npm test sets RIGHTSIZE_WAIT_FOR_LAB), a run or a build may queue for the lab behind
  // theirs before the page shows it: waits allow for that queue. A passing check still ends as soon as it holds.
  timeout: BESIDE_LANES ? 300_000 : 120_000,
  expect: { timeout: BESIDE_LANES ? 90_000 : 15_000 },
  reporter: [['list'], ['json', { outputFile: process.env.PLAYWRIGHT_JSON ?? 'test-results/e2e.json' }]],
  use: {
    viewport: { width: 1280, height: 800 },
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
    },
  },
  projects: [
    { name: 'serve', testMatch: /serve-.*\.spec\.ts/ },
    { name: 'electron', testMatch: /electron\.spec\.ts/ },
  ],
});
