// Guards on decisions that are easy to undo by accident: every preset repeats and shuffles (issue 11),
// and the layering (analysis is pure: no CLI, no Docker; only src-main/electron imports electron).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

describe('presets', () => {
  const dir = path.join(root, 'resources/presets');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

  it('exist', () => expect(files.length).toBeGreaterThan(0));

  it.each(files)('%s runs 3 repetitions in shuffled order', (f) => {
    const preset = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as { matrix?: Record<string, unknown> } & Record<string, unknown>;
    const matrix = preset.matrix ?? preset;
    expect({ repetitions: matrix.repetitions, order: matrix.order }).toEqual({ repetitions: 3, order: 'shuffle' });
  });
});

/** Every module specifier a source file names: static and dynamic imports, re-exports, require. */
export function specifiers(source: string): string[] {
  const out: string[] = [];
  const patterns = [
    /\bimport\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]/g,
    /\bexport\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s+from\s+['"]([^'"]+)['"]/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const re of patterns) for (const m of source.matchAll(re)) out.push(m[1]!);
  return out;
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (/\.(ts|mts|js|mjs|cjs|svelte)$/.test(e)) out.push(p);
  }
  return out;
}

const rel = (p: string): string => path.relative(root, p).split(path.sep).join('/');

describe('layering', () => {
  it('the import scanner sees every form (so the guards below can fail)', () => {
    const src = `import a from '../cli/format.ts';\nimport type { B } from "../docker/placement.ts";\nimport {\n  c,\n  d,\n} from '../cli/x.ts';\nexport * from '../docker/y.ts';\nexport { e } from './z.ts';\nconst f = await import('electron');\nconst g = require('electron');\nimport './side-effect.ts';`;
    expect(specifiers(src)).toEqual(expect.arrayContaining(['../cli/format.ts', '../docker/placement.ts', '../cli/x.ts', '../docker/y.ts', './z.ts', 'electron', './side-effect.ts']));
  });

  it('src-main/analysis imports nothing from src-main/cli or src-main/docker', () => {
    const forbidden = ['src-main/cli/', 'src-main/docker/'];
    const bad: string[] = [];
    for (const file of sources(path.join(root, 'src-main/analysis'))) {
      for (const s of specifiers(readFileSync(file, 'utf8'))) {
        if (!s.startsWith('.')) continue;
        const target = rel(path.resolve(path.dirname(file), s));
        if (forbidden.some((f) => `${target}/`.startsWith(f) || target.startsWith(f))) bad.push(`${rel(file)} imports ${s}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("nothing outside src-main/electron imports 'electron'", () => {
    const bad: string[] = [];
    for (const file of [...sources(path.join(root, 'src-main')), ...sources(path.join(root, 'src-renderer'))]) {
      if (rel(file).startsWith('src-main/electron/')) continue;
      if (specifiers(readFileSync(file, 'utf8')).some((s) => s === 'electron' || s.startsWith('electron/'))) bad.push(rel(file));
    }
    expect(bad).toEqual([]);
  });
});

describe('autocannon', () => {
  it('is pinned to the exact version installed: client-timing.ts patches its private methods', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; dependencies?: Record<string, string> }> };
    const wanted = pkg.dependencies.autocannon!;
    expect(wanted).toMatch(/^\d+\.\d+\.\d+$/);
    expect(lock.packages['']!.dependencies!.autocannon).toBe(wanted);
    expect(lock.packages['node_modules/autocannon']!.version).toBe(wanted);
  });
});
