import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';

// Which file of the built renderer a URL path names, shared by `rightsize serve` and the Electron
// app:// protocol. Plain Node (no electron import) so it is unit-tested as it is. A path that is
// malformed, leaves the folder, or names a type the UI does not ship is refused, never guessed.

/** The types the built renderer contains; anything else is not served. */
export const MIME_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

export type Asset = { ok: true; file: string; type: string } | { ok: false; status: 400 | 403 | 404; reason: string };

/**
 * Resolves a URL path (still percent-encoded, as in a URL's `pathname`) inside `root`. `/` is
 * index.html. Decoding happens once, here, after which `..`, `\`, NUL and absolute paths are
 * refused, and the result must still lie inside `root` (a symlink that leads out is refused too).
 */
export function resolveAsset(root: string, urlPath: string): Asset {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath);
  } catch {
    return { ok: false, status: 400, reason: 'malformed percent-encoding' };
  }
  if (rel.includes('\0')) return { ok: false, status: 400, reason: 'NUL in path' };
  if (rel.includes('\\')) return { ok: false, status: 400, reason: 'backslash in path' };
  rel = rel.replace(/^\/+/, '');
  if (rel === '') rel = 'index.html';
  const parts = rel.split('/');
  if (parts.some((p) => p === '..' || p === '.')) return { ok: false, status: 403, reason: 'path leaves the folder' };
  if (path.isAbsolute(rel) || /^[a-zA-Z]:/.test(rel)) return { ok: false, status: 403, reason: 'absolute path' };
  const base = path.resolve(root);
  const file = path.resolve(base, rel);
  if (!file.startsWith(base + path.sep)) return { ok: false, status: 403, reason: 'path leaves the folder' };
  const type = MIME_TYPES[path.extname(file).toLowerCase()];
  if (!type) return { ok: false, status: 404, reason: 'not a file type the UI ships' };
  try {
    if (!statSync(file).isFile()) return { ok: false, status: 404, reason: 'not a file' };
    if (!realpathSync(file).startsWith(realpathSync(base) + path.sep))
      return { ok: false, status: 403, reason: 'a link out of the folder' };
  } catch {
    return { ok: false, status: 404, reason: 'no such file' };
  }
  return { ok: true, file, type };
}

/** Content-Security-Policy for the renderer, whichever origin serves it ('self' is that origin). */
export const RENDERER_CSP =
  "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
