// The shape of the code, checked from the code itself: the layers of src-main (each folder imports
// only its own floor or lower ones, so no folder cycles), which files may ask a provider's kind, and
// the size limits. docs/ARCHITECTURE.md draws the same floors.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** Floors from the ground up: a folder may import its own floor and the ones below, never above. */
export const FLOORS: Record<string, number> = {
  model: 0,
  types: 0,
  common: 1,
  util: 1,
  session: 2,
  apps: 2,
  presets: 2,
  container: 3,
  docker: 3,
  probe: 3,
  load: 3,
  reaper: 3,
  'lab-lock': 4,
  'load-agent': 4,
  providers: 5,
  store: 6,
  analysis: 6,
  deploy: 7,
  engine: 8,
  export: 9,
  targets: 9,
  contract: 10,
  service: 11,
  transports: 12,
  cli: 12,
  electron: 13,
};

function filesUnder(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? filesUnder(p, ext) : ext.test(e.name) ? [p] : [];
  });
}

const main = filesUnder(join(ROOT, 'src-main'), /\.ts$/);
const folderOf = (file: string): string => relative(join(ROOT, 'src-main'), file).split('/')[0]!;

interface Edge {
  from: string;
  to: string;
  file: string;
}

function edges(): Edge[] {
  const out: Edge[] = [];
  const spec = /(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const file of main) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(spec)) {
      const target = resolve(dirname(file), m[1]!);
      if (!target.startsWith(join(ROOT, 'src-main'))) continue;
      const [from, to] = [folderOf(file), folderOf(target)];
      if (from !== to) out.push({ from, to, file: relative(ROOT, file) });
    }
  }
  return out;
}

describe('architecture', () => {
  const all = edges();

  it('gives every folder of src-main a floor', () => {
    const folders = [...new Set(main.map(folderOf))].filter((f) => !f.endsWith('.ts'));
    expect(folders.filter((f) => FLOORS[f] === undefined)).toEqual([]);
  });

  it('imports only downwards: nothing reaches a higher floor', () => {
    const upward = all.filter((e) => FLOORS[e.to]! > FLOORS[e.from]!).map((e) => `${e.file} → ${e.to}/`);
    expect(upward).toEqual([]);
  });

  it('has no folder cycles', () => {
    const next = new Map<string, Set<string>>();
    for (const e of all) next.set(e.from, (next.get(e.from) ?? new Set()).add(e.to));
    const cycles: string[] = [];
    const walk = (node: string, path: string[]): void => {
      for (const n of next.get(node) ?? []) {
        if (n === path[0]) cycles.push([...path, n].join(' → '));
        else if (!path.includes(n) && n > path[0]!) walk(n, [...path, n]);
      }
    };
    for (const start of next.keys()) walk(start, [start]);
    expect(cycles).toEqual([]);
  });

  it('finds a planted cycle (the check can fail)', () => {
    const planted = [...all, { from: 'model', to: 'engine', file: 'planted' }];
    expect(planted.filter((e) => FLOORS[e.to]! > FLOORS[e.from]!)).toHaveLength(1);
  });

  it('asks which kind a provider is only inside providers/', () => {
    const kinds = "'(?:local|docker|swarm|kubernetes)'";
    const asks = new RegExp(`kind\\s*[!=]==?\\s*${kinds}|${kinds}\\s*[!=]==?\\s*[\\w.?]*kind|case\\s+'(?:swarm|kubernetes)'`);
    const offenders = main
      .filter((f) => !relative(ROOT, f).startsWith('src-main/providers/'))
      .flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .flatMap((line, i) => (asks.test(line) ? [`${relative(ROOT, f)}:${i + 1}`] : [])),
      );
    expect(offenders).toEqual([]);
  });

  it('keeps every file of src-main and src-renderer within 400 lines', () => {
    const files = [...main, ...filesUnder(join(ROOT, 'src-renderer'), /\.(ts|svelte)$/)];
    const long = files.flatMap((f) => {
      const n = readFileSync(f, 'utf8').split('\n').length;
      return n > 401 ? [`${relative(ROOT, f)}: ${n} lines`] : [];
    });
    expect(long).toEqual([]);
  });

  it('keeps lines of src-main within 120 characters', () => {
    const long = main.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) => ([...line].length > 120 ? [`${relative(ROOT, f)}:${i + 1}`] : [])),
    );
    expect(long.length, long.slice(0, 20).join('\n')).toBe(0);
  });
});
