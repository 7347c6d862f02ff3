import { BrowserWindow, type WebContents } from 'electron';

/** The one window. Security settings are explicit even where they are Electron's defaults. */
export function createWindow(preload: string, index: string): BrowserWindow {
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
  void win.loadFile(index);
  return win;
}

/** No navigation away from the app, no new windows, no webviews: the renderer only ever shows our page. */
export function lockDown(contents: WebContents): void {
  contents.on('will-navigate', (e) => e.preventDefault());
  contents.on('will-redirect', (e) => e.preventDefault());
  contents.on('will-attach-webview', (e) => e.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}
