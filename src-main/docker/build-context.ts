import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import tar from 'tar-stream';
import type { Readable } from 'node:stream';

interface Entry {
  name: string;
  mode: number;
  dir?: boolean;
  content?: Buffer;
  source?: string; // streamed from disk at pack time: the node binary is ~100 MB
  size?: number;
  /** Of `source`, stat'ed when it was added: the digest uses it instead of stat'ing every file again. */
  mtimeMs?: number;
  /** Stands in the digest by size and mtime instead of content (files that change only with Rightsize itself). */
  byStat?: boolean;
  /** Stands in the digest instead of the file (a download by its checksum: the same whenever it is fetched again). */
  standsFor?: string;
}

/** Files read at once while hashing: one at a time, 3,000 small files took ~0.7 s. */
const READ_CONCURRENCY = 32;

/**
 * An in-memory list of what goes into a `docker build` context. Large files stay on disk until
 * packing. `digest()` hashes names, modes and contents (size+mtime for big sources), which is
 * what image tags are derived from: same inputs, same tag, no rebuild.
 */
export class BuildContext {
  private entries = new Map<string, Entry>();
  private digested?: Promise<string>;

  addText(name: string, text: string, mode = 0o644): this {
    return this.put({ name, mode, content: Buffer.from(text) });
  }

  addFile(name: string, source: string, mode?: number, standsFor?: string): this {
    const st = statSync(source); // follows links: libraries are often symlinks
    const e = { name, mode: mode ?? st.mode & 0o7777, source, size: st.size, mtimeMs: st.mtimeMs };
    return this.put(standsFor ? { ...e, standsFor } : e);
  }

  addDir(name: string, mode = 0o755): this {
    return this.put({ name, mode, dir: true });
  }

  /**
   * Copies a directory tree; `skip` gets paths relative to `src` with forward slashes. Asynchronous:
   * trees can be large. `byStat`: the files count in the digest by size and mtime, not content —
   * for trees that only change when Rightsize itself is installed anew (PM2 in node_modules).
   */
  async addTree(
    dest: string,
    src: string,
    skip: (rel: string, isDir: boolean) => boolean = () => false,
    opts: { byStat?: boolean } = {},
  ): Promise<this> {
    const walk = async (rel: string): Promise<void> => {
      for (const d of await readdir(path.join(src, rel), { withFileTypes: true })) {
        const r = rel ? `${rel}/${d.name}` : d.name;
        const full = path.join(src, r);
        const isDir = d.isDirectory() || (d.isSymbolicLink() && (await stat(full)).isDirectory());
        if (skip(r, isDir)) continue;
        if (isDir) {
          this.addDir(`${dest}/${r}`);
          await walk(r);
        } else if (d.isFile() || d.isSymbolicLink()) {
          const st = await stat(full); // follows links: libraries are often symlinks
          this.put({
            name: `${dest}/${r}`,
            mode: st.mode & 0o7777,
            source: full,
            size: st.size,
            mtimeMs: st.mtimeMs,
            ...(opts.byStat ? { byStat: true } : {}),
          });
        }
      }
    };
    this.addDir(dest);
    await walk('');
    return this;
  }

  /**
   * Asynchronous and remembered: PM2 alone is thousands of files, and reading them synchronously
   * stalled the engine's event loop (the Electron main process) for ~200 ms at every run start.
   */
  digest(): Promise<string> {
    this.digested ??= (async () => {
      const entries = [...this.entries.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
      // What stands for each file's content, read READ_CONCURRENCY at a time, hashed in name order.
      const parts: (Buffer | string | undefined)[] = new Array(entries.length);
      let next = 0;
      const worker = async (): Promise<void> => {
        for (let i = next++; i < entries.length; i = next++) {
          const e = entries[i]!;
          if (e.content || !e.source) continue;
          if (e.standsFor) parts[i] = `=${e.standsFor}`;
          else if (e.byStat) parts[i] = `${e.size}:${e.mtimeMs}`;
          // Hashing 100 MB of node binary on every run would cost more than the build it saves.
          else parts[i] = e.size! > 4 * 1024 * 1024 ? `${e.source}:${e.size}:${e.mtimeMs}` : await readFile(e.source);
        }
      };
      await Promise.all(Array.from({ length: READ_CONCURRENCY }, worker));
      const h = createHash('sha256');
      entries.forEach((e, i) => {
        h.update(`${e.name}\0${e.mode}\0${e.dir ? 'd' : 'f'}\0`);
        const part = e.content ?? parts[i];
        if (part !== undefined) h.update(part);
      });
      return h.digest('hex');
    })();
    return this.digested;
  }

  pack(): Readable {
    const p = tar.pack();
    const entries = [...this.entries.values()];
    const next = (i: number): void => {
      const e = entries[i];
      if (!e) return void p.finalize();
      const header = { name: e.name, mode: e.mode, mtime: new Date(0), uid: 0, gid: 0 };
      if (e.dir) return void p.entry({ ...header, type: 'directory' }, () => next(i + 1));
      if (e.content) return void p.entry({ ...header, size: e.content.length }, e.content, () => next(i + 1));
      const sink = p.entry({ ...header, size: e.size }, (err) => (err ? p.destroy(err) : next(i + 1)));
      createReadStream(e.source!).pipe(sink);
    };
    next(0);
    return p as unknown as Readable; // tar-stream packs are streamx streams, which dockerode pipes like any Readable
  }

  private put(e: Entry): this {
    this.digested = undefined;
    this.entries.set(e.name.replace(/^\/+/, ''), { ...e, name: e.name.replace(/^\/+/, '') });
    return this;
  }
}
