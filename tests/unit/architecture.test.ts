// The shape of the code, checked from the code itself: the layers of src-main (each folder imports
// only its own floor or lower ones, so no folder cycles), no import cycle between files, the answer's
// types in type-only files, the renderer seeing only the contract, which files may ask a provider's
// kind, and the size limits. docs/ARCHITECTURE.md draws the same floors.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
  mix: 2,
  presets: 2,
  container: 3,
  docker: 3,
  probe: 3,
  tls: 3,
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

const SRC_MAIN = join(ROOT, 'src-main');
const main = filesUnder(SRC_MAIN, /\.ts$/);
const renderer = filesUnder(join(ROOT, 'src-renderer'), /\.(ts|svelte)$/);
const folderOf = (file: string): string => relative(SRC_MAIN, file).split('/')[0]!;
const rel = (file: string): string => relative(ROOT, file);

/**
 * One import or re-export of a file: `target` the file a relative specifier resolves to (null for a
 * package or node: module, named by `spec`), and whether it is erased when compiled: `import type`,
 * `export type`, or `import('…').T` in a type. With verbatimModuleSyntax, `import { type T }` stays as
 * an import of the module, so it counts as one that runs.
 */
export interface Import {
  file: string;
  spec: string;
  target: string | null;
  typeOnly: boolean;
}

const STATIC_IMPORT = /\b(import|export)\s+(type\s+)?(?:[^'";]*?\bfrom\s*)?['"]([^'"\n]+)['"]/g;
const EXPRESSION_IMPORT = /\bimport\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g;

function resolveSpec(file: string, spec: string): string | null {
  if (!spec.startsWith('./') && !spec.startsWith('../')) return null;
  const p = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
  const found = [p, `${p}.ts`, join(p, 'index.ts')].find((c) => existsSync(c) && /\.(ts|svelte|json|css)$/.test(c));
  return found ?? p;
}

/** The text with its comments blanked (strings kept, so a "//" inside one stays). */
const withoutComments = (text: string): string =>
  text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\[\s\S]|[^`\\])*`/g, (m) =>
    m.startsWith('/') ? m.replace(/[^\n]/g, ' ') : m,
  );

export function importsOf(file: string, source: string): Import[] {
  const text = withoutComments(source);
  const out: Import[] = [];
  for (const m of text.matchAll(STATIC_IMPORT))
    out.push({ file, spec: m[3]!, target: resolveSpec(file, m[3]!), typeOnly: Boolean(m[2]) });
  for (const m of text.matchAll(EXPRESSION_IMPORT)) {
    const before = text.slice(Math.max(0, m.index - 12), m.index);
    const after = text.slice(m.index + m[0].length);
    const typeOnly = !/\bawait\s*\(?\s*$/.test(before) && /^\.\s*[A-Z]/.test(after);
    out.push({ file, spec: m[1]!, target: resolveSpec(file, m[1]!), typeOnly });
  }
  return out;
}

const importsByFile = new Map([...main, ...renderer].map((f) => [f, importsOf(f, readFileSync(f, 'utf8'))]));

/**
 * The cycles of a directed graph: one per knot (a strongly connected set of nodes, Tarjan's), said as
 * the shortest way round from its first node — "a → b → c → a" — so a cycle of 24 files is one line.
 */
export function cyclesOf(next: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const knots: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const knot = stack.splice(stack.indexOf(v));
    if (knot.length > 1 || next.get(v)?.has(v)) knots.push(knot);
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return knots.map((knot) => {
    const inKnot = new Set(knot);
    const start = [...knot].sort()[0]!;
    const cameFrom = new Map<string, string>();
    const queue = [start];
    for (let i = 0; i < queue.length && !cameFrom.has(start); i++)
      for (const w of next.get(queue[i]!) ?? [])
        if (inKnot.has(w) && !cameFrom.has(w)) {
          cameFrom.set(w, queue[i]!);
          queue.push(w);
        }
    const way = [start];
    for (let at = cameFrom.get(start)!; at !== start; at = cameFrom.get(at)!) way.unshift(at);
    return `${[start, ...way].join(' → ')}${knot.length > way.length ? ` (${knot.length} in the knot)` : ''}`;
  });
}

const graphOf = (pairs: readonly (readonly [string, string])[]): Map<string, Set<string>> => {
  const next = new Map<string, Set<string>>();
  for (const [a, b] of pairs) next.set(a, (next.get(a) ?? new Set()).add(b));
  return next;
};

/** Every import between two files of src-main, `import type` and `import('…').T` included. */
const fileEdges: [string, string][] = main.flatMap((f) =>
  importsByFile
    .get(f)!
    .filter((i) => i.target?.startsWith(`${SRC_MAIN}/`))
    .map((i): [string, string] => [rel(f), rel(i.target!)]),
);

interface Edge {
  from: string;
  to: string;
  file: string;
}

function edges(): Edge[] {
  return fileEdges.flatMap(([file, target]) => {
    const [from, to] = [folderOf(join(ROOT, file)), folderOf(join(ROOT, target))];
    return from !== to ? [{ from, to, file }] : [];
  });
}

const TYPE_FILE = /^src-main\/analysis\/(?:[\w-]+-)?types\.ts$/;

/** The answer's type files import only types, and only from model/ and each other. */
export function typeFileProblems(imports: readonly Import[]): string[] {
  return imports
    .filter((i) => TYPE_FILE.test(rel(i.file)))
    .filter(
      (i) =>
        !i.typeOnly || !i.target || !(rel(i.target).startsWith('src-main/model/') || TYPE_FILE.test(rel(i.target))),
    )
    .map((i) => `${rel(i.file)}: ${i.typeOnly ? '' : 'runtime '}import of ${i.spec}`);
}

/**
 * What the renderer may take from src-main: code only from contract/, types only from contract/ or
 * model/ (plain data). Anything else — analysis/, docker/, common/… — comes through the contract.
 */
export function rendererProblems(imports: readonly Import[]): string[] {
  return imports
    .filter((i) => i.target?.startsWith(`${SRC_MAIN}/`))
    .filter((i) => {
      const to = rel(i.target!);
      return !(to.startsWith('src-main/contract/') || (i.typeOnly && to.startsWith('src-main/model/')));
    })
    .map((i) => `${rel(i.file)}: ${i.typeOnly ? 'import type' : 'import'} ${rel(i.target!)}`);
}

/** Folders whose code the renderer's contract may run: the contract's own, and the pure helpers below it. */
const RENDERER_RUNS = new Set(['contract', 'common', 'model']);

/**
 * Every file of src-main the renderer's code runs (the runtime imports of the contract, followed),
 * with what it must not: a folder outside RENDERER_RUNS, a node: module or a package.
 */
export function rendererReach(imports: ReadonlyMap<string, readonly Import[]>, from: readonly string[]): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  const runs = (f: string): Import[] => (imports.get(f) ?? []).filter((i) => !i.typeOnly);
  const queue = from.flatMap((f) => runs(f).flatMap((i) => (i.target?.startsWith(`${SRC_MAIN}/`) ? [i.target] : [])));
  for (const f of queue) {
    if (seen.has(f)) continue;
    seen.add(f);
    if (!RENDERER_RUNS.has(folderOf(f))) problems.push(`${rel(f)}: outside ${[...RENDERER_RUNS].join(', ')}`);
    for (const i of runs(f)) {
      if (i.target === null) problems.push(`${rel(f)}: imports ${i.spec}`);
      else if (i.target.startsWith(`${SRC_MAIN}/`)) queue.push(i.target);
    }
  }
  return problems;
}

/**
 * The floors inside analysis/, by role: the answer's types and the configuration's names, then decide/
 * (summaries, statistics, the order, the contest, the objective), size/ (memory, CPU), explain/ (words
 * and charts that read decisions and make none), compare/ (other runs, topologies, versions), and the
 * files that assemble the answer (recommend.ts, search-answer.ts, index.ts).
 */
export function analysisFloor(file: string): number | null {
  const m = /^src-main\/analysis\/(?:(decide|size|explain|compare)\/)?([\w-]+)\.ts$/.exec(file);
  if (!m) return null;
  if (m[1]) return { decide: 1, size: 2, explain: 3, compare: 4 }[m[1]]!;
  return TYPE_FILE.test(file) || m[2] === 'names' ? 0 : 5;
}

/** Imports between files of analysis/ that reach a higher role floor. */
export function analysisUpward(pairs: readonly (readonly [string, string])[]): string[] {
  return pairs.flatMap(([file, target]) => {
    const [a, b] = [analysisFloor(file), analysisFloor(target)];
    return a !== null && b !== null && b > a ? [`${file} → ${target}`] : [];
  });
}

describe('architecture', () => {
  const all = edges();
  const folderCycles = (es: readonly Edge[]): string[] => cyclesOf(graphOf(es.map((e) => [e.from, e.to])));
  const rendererImports = renderer.flatMap((f) => importsByFile.get(f)!);

  it('reads every relative import of src-main and src-renderer to a file', () => {
    const unresolved = [...importsByFile.values()]
      .flat()
      .filter((i) => i.target !== null && !existsSync(i.target))
      .map((i) => `${rel(i.file)}: ${i.spec}`);
    expect(unresolved).toEqual([]);
    expect(fileEdges.length).toBeGreaterThan(500);
  });

  it('gives every folder of src-main a floor', () => {
    const folders = [...new Set(main.map(folderOf))].filter((f) => !f.endsWith('.ts'));
    expect(folders.filter((f) => FLOORS[f] === undefined)).toEqual([]);
  });

  it('imports only downwards: nothing reaches a higher floor', () => {
    const upward = all.filter((e) => FLOORS[e.to]! > FLOORS[e.from]!).map((e) => `${e.file} → ${e.to}/`);
    expect(upward).toEqual([]);
  });

  it('splits analysis/ by role: decide/ and size/ never import the words, explain/ makes no decision', () => {
    expect(analysisUpward(fileEdges)).toEqual([]);
    expect(new Set(fileEdges.flatMap(([f]) => [analysisFloor(f)]))).toEqual(new Set([null, 0, 1, 2, 3, 4, 5]));
    // Planted: the contest reading a word file, and a type file importing a decision.
    const planted: [string, string][] = [
      ['src-main/analysis/decide/contest.ts', 'src-main/analysis/explain/phrases.ts'],
      ['src-main/analysis/size/memory.ts', 'src-main/analysis/decide/stats.ts'],
      ['src-main/analysis/answer-types.ts', 'src-main/analysis/decide/decide.ts'],
    ];
    expect(analysisUpward(planted)).toEqual([
      'src-main/analysis/decide/contest.ts → src-main/analysis/explain/phrases.ts',
      'src-main/analysis/answer-types.ts → src-main/analysis/decide/decide.ts',
    ]);
  });

  it('has no folder cycles', () => {
    expect(folderCycles(all)).toEqual([]);
  });

  it('finds a planted folder cycle (the check can fail)', () => {
    // A file of model/ importing engine/, which imports model/: the walker must find the cycle itself.
    const planted = [...all, { from: 'model', to: 'engine', file: 'src-main/model/planted.ts' }];
    const found = folderCycles(planted);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('model → engine');
  });

  it('has no import cycle between files of src-main (import type counted)', () => {
    expect(cyclesOf(graphOf(fileEdges))).toEqual([]);
  });

  it('finds a planted file cycle (the check can fail)', () => {
    // model/types.ts importing the answer, which imports model/types.ts (through several files).
    const planted = graphOf([...fileEdges, ['src-main/model/types.ts', 'src-main/analysis/recommend.ts']]);
    const found = cyclesOf(planted);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('src-main/model/types.ts → src-main/analysis/recommend.ts');
    // And a cycle of two files inside one folder, which no folder check sees.
    const twoFiles = cyclesOf(graphOf([...fileEdges, ['src-main/model/probe.ts', 'src-main/model/types.ts']]));
    expect(twoFiles).toEqual(['src-main/model/probe.ts → src-main/model/types.ts → src-main/model/probe.ts']);
  });

  it("keeps the answer's types in type-only files that import only model/ and each other", () => {
    expect(typeFileProblems(main.flatMap((f) => importsByFile.get(f)!))).toEqual([]);
    const planted = importsOf(
      join(SRC_MAIN, 'analysis/answer-types.ts'),
      "import type { Headline } from './headline.ts';\nimport { ALPHA } from './stats-types.ts';\n" +
        "import type { Prices } from '../model/cost.ts';\nimport type { Sizing } from './sizing-types.ts';",
    );
    expect(typeFileProblems(planted)).toEqual([
      'src-main/analysis/answer-types.ts: import of ./headline.ts',
      'src-main/analysis/answer-types.ts: runtime import of ./stats-types.ts',
    ]);
  });

  it('lets the renderer import from src-main only the contract (types: the contract or model/)', () => {
    expect(rendererProblems(rendererImports)).toEqual([]);
  });

  it('finds a planted renderer import of the engine (the check can fail)', () => {
    const file = join(ROOT, 'src-renderer/routes/Planted.svelte');
    const planted = importsOf(
      file,
      '<script lang="ts">\n  import { who } from \'../../src-main/analysis/explain/words.ts\';\n' +
        "  import type { Sizing } from '../../src-main/analysis/types.ts';\n" +
        "  import { type Problem } from '../../src-main/engine/matrix.ts';\n" +
        "  import type { Sample } from '../../src-main/model/types.ts';\n" +
        "  import { fmtNum } from '../../src-main/contract/present.ts';\n</script>",
    );
    expect(rendererProblems(planted)).toEqual([
      'src-renderer/routes/Planted.svelte: import src-main/analysis/explain/words.ts',
      'src-renderer/routes/Planted.svelte: import type src-main/analysis/types.ts',
      'src-renderer/routes/Planted.svelte: import src-main/engine/matrix.ts',
    ]);
  });

  it('runs in the renderer only code of contract/, common/ and model/, with no node: module or package', () => {
    expect(rendererReach(importsByFile, renderer)).toEqual([]);
    // Planted: the contract re-exporting a function of analysis/ would bring the engine in through it.
    const contract = join(SRC_MAIN, 'contract/present.ts');
    const planted = new Map(importsByFile).set(contract, [
      ...(importsByFile.get(contract) ?? []),
      ...importsOf(contract, "export { who } from '../analysis/explain/phrases.ts';"),
    ]);
    expect(rendererReach(planted, renderer)).toContain('src-main/analysis/explain/phrases.ts: outside contract, common, model');
  });

  it('asks which kind a provider is only inside providers/', () => {
    const kinds = "'(?:local|docker|swarm|kubernetes)'";
    const asks = new RegExp(
      `kind\\s*[!=]==?\\s*${kinds}|${kinds}\\s*[!=]==?\\s*[\\w.?]*kind|case\\s+'(?:swarm|kubernetes)'`,
    );
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
    const files = [...main, ...renderer];
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
