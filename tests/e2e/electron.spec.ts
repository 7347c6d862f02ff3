import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { _electron as electron } from '@playwright/test';
import { expect, ROOT, test } from './fixtures';
// @ts-expect-error: plain .mjs helper shared with `npm start`
import { findElectronBinary } from '../../scripts/electron-binary.mjs';

const bin = findElectronBinary() as { path: string | null; reason?: string };

// Playwright's Electron launcher needs the unpackaged app (the packaged one has run-as-node and
// inspect fuses off), so this starts the built app from the repository.
test.skip(!bin.path, `skipped: ${bin.reason}. The same UI is tested through \`rightsize serve\` in Chromium.`);

test('opens one locked-down window whose renderer reaches the engine over IPC', async () => {
  const app = await electron.launch({
    executablePath: bin.path!,
    args: [ROOT],
    env: { ...process.env, RIGHTSIZE_USER_DATA: mkdtempSync(path.join(tmpdir(), 'rightsize-electron-')) } as Record<string, string>,
  });
  try {
    const win = await app.firstWindow();
    await expect(win.getByTestId('transport')).toHaveText('via ipc');
    await expect(win.getByTestId('engine').or(win.getByTestId('docker-banner'))).toBeVisible();
    expect(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(1);
    // Isolation as the page sees it: no Node, and a bridge that is exactly the contract.
    const page = await win.evaluate(() => {
      const g = globalThis as unknown as { require?: unknown; process?: unknown; rightsize?: Record<string, unknown> };
      return { require: typeof g.require, process: typeof g.process, bridge: Object.keys(g.rightsize ?? {}).sort() };
    });
    expect(page).toEqual({ require: 'undefined', process: 'undefined', bridge: ['call', 'subscribe'] });
  } finally {
    await app.close();
  }
});
