import { defineConfig } from '@playwright/test';

// End-to-end: the UI through `rightsize serve` in Debian's Chromium (no browser download here), and
// the Electron app where its binary exists. One worker: runs share the machine's two cores. What a
// run makes (images, containers, temporary folders) is removed at its end (tests/helpers/global-setup.ts).
export default defineConfig({
  testDir: 'tests/e2e',
  globalSetup: './tests/helpers/global-setup.ts',
  workers: 1,
  timeout: 120_000,
  expect: { timeout: 15_000 },
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
