import { api, transportName } from './api.ts';

/**
 * Saves an export: a native save dialog in the desktop app, a download in the browser.
 * Returns a short message for the UI.
 */
export async function saveFile(filename: string, content: string, encoding: 'utf8' | 'base64', mime: string): Promise<string> {
  if (transportName === 'ipc') {
    const r = await api.call('files.save', { filename, content, encoding });
    return r.saved ? `Saved ${r.path}` : r.reason === 'cancelled' ? 'Not saved' : `Not saved: ${r.reason}`;
  }
  const bytes = encoding === 'base64' ? Uint8Array.from(atob(content), (c) => c.charCodeAt(0)) : new TextEncoder().encode(content);
  const url = URL.createObjectURL(new Blob([bytes], { type: mime }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return `Downloaded ${filename}`;
}
