import { BrowserWindow, type WebContents } from 'electron';
import { isAppUrl } from './app-protocol.ts';

/** The one window. Security settings are explicit even where they are Electron's defaults. */
export function createWindow(preload: string, url: string): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 800,
    minWidth: 960,
    minHeight: 640,
    title: 'Rightsize',
    show: false,
    webPreferences: {
      preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
      disableBlinkFeatures: 'Auxclick', // a middle-click must not open a link in a new window
    },
  });
  win.once('ready-to-show', () => win.show());
  void win.loadURL(url);
  return win;
}

/**
 * The renderer only ever shows our own pages (app://rightsize/…): navigation and redirects
 * elsewhere are stopped, and there are no new windows and no webviews. Reloads stay allowed.
 */
export function lockDown(contents: WebContents): void {
  contents.on('will-navigate', (e, url) => {
    if (!isAppUrl(url)) e.preventDefault();
  });
  contents.on('will-redirect', (e, url) => {
    if (!isAppUrl(url)) e.preventDefault();
  });
  contents.on('will-attach-webview', (e) => e.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}
