// The Electron main process: a thin shell around the engine. It opens the store under the user-data
// folder, wires the contract to IPC, and shows one locked-down window. The engine itself never
// imports electron; load generation runs in its own worker thread, so the UI never stutters.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, protocol, session } from 'electron';
import { Lab } from '../service/lab.ts';
import { registerIpc, type IpcMainLike } from '../transports/ipc-main.ts';
import { APP_INDEX_URL, APP_SCHEME, APP_SCHEME_PRIVILEGES, rendererHandler } from './app-protocol.ts';
import { createWindow, lockDown } from './window.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const PRELOAD = path.join(here, 'preload.cjs');
const RENDERER = path.join(here, 'renderer');
let lab: Lab | undefined;
// Tests (and people who keep several labs) point the app at its own data folder.
if (process.env.RIGHTSIZE_USER_DATA) app.setPath('userData', process.env.RIGHTSIZE_USER_DATA);
// The renderer is served from app://rightsize (see app-protocol.ts); schemes are registered before ready.
protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME_PRIVILEGES.scheme, privileges: { ...APP_SCHEME_PRIVILEGES.privileges } },
]);

if (!app.requestSingleInstanceLock()) {
  app.quit(); // a second copy would run matrices on the same cores as the first
} else {
  app.on('web-contents-created', (_e, contents) => lockDown(contents));
  void app.whenReady().then(start);
  app.on('window-all-closed', () => app.quit());
  let quitting = false;
  app.on('before-quit', (e) => {
    if (quitting || !lab) return;
    // Cancel a run in progress and remove its container before the process goes.
    e.preventDefault();
    quitting = true;
    void lab.close().finally(() => app.quit());
  });
}

const ALLOWED_PERMISSIONS = new Set<string>(['clipboard-sanitized-write']);

async function start(): Promise<void> {
  const deny = session.defaultSession;
  // Everything denied but writing text to the clipboard (the deploy snippets' Copy button).
  deny.setPermissionRequestHandler((_wc, permission, cb) => cb(ALLOWED_PERMISSIONS.has(permission)));
  deny.setPermissionCheckHandler((_wc, permission) => ALLOWED_PERMISSIONS.has(permission));
  protocol.handle(APP_SCHEME, rendererHandler(RENDERER));
  try {
    lab = await Lab.open({
      dbPath: path.join(app.getPath('userData'), 'rightsize.db'),
      hooks: {
        saveFile: async (file) => {
          const win = BrowserWindow.getFocusedWindow() ?? BrowserWindow.getAllWindows()[0];
          const options = { defaultPath: path.join(app.getPath('documents'), file.filename) };
          const choice = win ? await dialog.showSaveDialog(win, options) : await dialog.showSaveDialog(options);
          if (choice.canceled || !choice.filePath) return { saved: false, reason: 'cancelled' };
          await writeFile(choice.filePath, Buffer.from(file.content, file.encoding));
          return { saved: true, path: choice.filePath };
        },
      },
    });
  } catch (e) {
    dialog.showErrorBox('Rightsize cannot open its history', (e as Error).message);
    app.exit(1);
    return;
  }
  registerIpc(ipcMain as unknown as IpcMainLike, lab);
  const win = createWindow(PRELOAD, APP_INDEX_URL);
  app.on('second-instance', () => {
    if (win.isMinimized()) win.restore();
    win.focus();
  });
}
