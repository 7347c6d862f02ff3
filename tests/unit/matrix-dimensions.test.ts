// The matrix's replicas, total budget, Node.js versions and flag sets: what a hand-written file
// gets told when one is wrong (every problem at once, naming the field), and exactly which cells a
// valid one expands into.
import { describe, expect, it } from 'vitest';
import { countCells, expandMatrix, validateMatrix, type HostLimits, type Matrix } from '../../src-main/engine/matrix.ts';
import { coresShortfall } from '../../src-main/engine/matrix-dimensions.ts';

const host: HostLimits = { cores: 4, memoryMb: 4096, apps: ['hello', 'json', 'mine'] };
const base = { apps: ['json'], modes: ['cluster'], workers: [1, 2], cpuMillicores: [1000], memoryMb: [256] };

function problems(input: unknown, limits = host): string[] {
  const v = validateMatrix(input, limits);
  if (v.ok) throw new Error('expected problems');
  return v.problems.map((p) => `${p.path}: ${p.message}`);
}
function valid(input: unknown, limits = host): { matrix: Matrix; cells: number } {
  const v = validateMatrix(input, limits);
  if (!v.ok) throw new Error(v.problems.map((p) => `${p.path}: ${p.message}`).join('\n'));
  return v;
}
const triples = (m: Matrix): [number, number, number, number][] =>
  expandMatrix(m).map((c) => [c.replicas ?? 1, c.cpuMillis, c.memoryMb, c.workers]);

describe('the new dimensions, refused in words', () => {
  it.each([
    [{ ...base, replicas: [0] }, 'replicas: 0 is not a replica count (a whole number from 1 to 16)'],
    [{ ...base, replicas: [1.5] }, 'replicas: 1.5 is not a replica count (a whole number from 1 to 16)'],
    [{ ...base, replicas: [] }, 'replicas: needs at least one value'],
    [{ ...base, replicas: [5] }, "replicas: 5 replicas × 1000m is 5000m in total, more than this host's 4 cores (4000m)"],
    [{ ...base, replicas: 2 }, 'replicas: should be a list of container counts per cell, e.g. [1, 2] (default [1]; caps and workers are per replica), not the number 2.'],
    [{ ...base, node: ['lts'] }, 'node: "lts" is not a Node.js version; give a major such as "22" or an exact version such as "22.11.0"'],
    [{ ...base, node: ['v22'] }, 'node: "v22" is not a Node.js version; give a major such as "22" or an exact version such as "22.11.0" (without the "v": "22")'],
    [{ ...base, node: ['22.11'] }, 'node: "22.11" is not a Node.js version; give a major such as "22" or an exact version such as "22.11.0"'],
    [{ ...base, node: ['22', '22'] }, 'node: each version only once'],
    [{ ...base, node: 22 }, expect.stringMatching(/^node: should be a list of Node\.js versions: .*, not the number 22\.$/)],
    [{ ...base, nodeFlags: [['--inspect=0.0.0.0:9229']] }, 'nodeFlags.0: "--inspect=0.0.0.0:9229" is refused: a debugger, profiler or heap dump would be measured along with the server'],
    [{ ...base, nodeFlags: [[], ['--cpu-prof']] }, 'nodeFlags.1: "--cpu-prof" is refused: a debugger, profiler or heap dump would be measured along with the server'],
    [{ ...base, nodeFlags: [['--prof']] }, 'nodeFlags.0: "--prof" is refused: a debugger, profiler or heap dump would be measured along with the server'],
    [{ ...base, nodeFlags: [['--heapsnapshot-near-heap-limit=1']] }, expect.stringMatching(/^nodeFlags\.0: "--heapsnapshot-near-heap-limit=1" is refused/)],
    [{ ...base, nodeFlags: [['max-semi-space-size=32']] }, 'nodeFlags.0: "max-semi-space-size=32" is not a Node.js flag: flags start with "--", e.g. "--max-semi-space-size=32"'],
    [{ ...base, nodeFlags: [['--max-semi-space-size=32 --jitless']] }, 'nodeFlags.0: "--max-semi-space-size=32 --jitless" has a space in it: give each flag as its own item, e.g. ["--a", "--b"]'],
    [{ ...base, nodeFlags: [] }, 'nodeFlags: needs at least one flag set ([] is the set of no flags)'],
    [{ ...base, nodeFlags: [[], []] }, 'nodeFlags: each flag set only once'],
    [{ ...base, nodeFlags: ['--jitless'] }, 'nodeFlags.0: should be a list, not the text "--jitless".'],
    [{ ...base, nodFlags: [[]] }, 'nodFlags: is not a field here. Did you mean "nodeFlags"?'],
    [{ ...base, budget: { cpuMillicores: [2000], memoryMb: [512], maxReplica: 2 } }, 'budget.maxReplica: is not a field here. Did you mean "maxReplicas"?'],
  ])('%j → %s', (input, message) => {
    expect(problems(input)).toContainEqual(message);
  });

  it('a budget with an impossible split, and one next to cpuMillicores: every problem at once', () => {
    const { cpuMillicores: _c, memoryMb: _m, ...rest } = base;
    expect(problems({ ...rest, replicas: [1, 3, 0], budget: { cpuMillicores: [2000], memoryMb: [512] } })).toEqual([
      'replicas: 0 is not a replica count (a whole number from 1 to 16)',
      'replicas: 2000m and 512 MB over 3 replicas is not whole millicores and MB each (666.67m, 170.67 MB)',
    ]);
    // 800m / 64 MB splits evenly over 1, 2, 4, 8 and 16 replicas; the last three fall below a minimum.
    expect(problems({ ...rest, budget: { cpuMillicores: [800], memoryMb: [64], maxReplicas: 16 } })).toEqual([
      'budget.maxReplicas: 800m and 64 MB over 4 replicas is 16 MB each, below the minimum of 32 MB',
      'budget.maxReplicas: 800m and 64 MB over 8 replicas is 8 MB each, below the minimum of 32 MB',
      'budget.maxReplicas: 800m and 64 MB over 16 replicas is 50m each, below the 100m a replica needs at least',
    ]);
    expect(problems({ ...base, budget: { cpuMillicores: [8000], memoryMb: [512] } })).toEqual([
      'cpuMillicores: give either "cpuMillicores" or "budget", not both: with a budget each replica gets cpuMillicores = budget.cpuMillicores ÷ replicas',
      'memoryMb: give either "memoryMb" or "budget", not both: with a budget each replica gets memoryMb = budget.memoryMb ÷ replicas',
      "budget.cpuMillicores: 8000m is more than this host's 4 cores (4000m)",
    ]);
    expect(problems({ ...rest, budget: { cpuMillicores: [2000] } })).toEqual([
      'budget.memoryMb: is missing: give a list of total memory in MB to split over the replicas, e.g. [1024].',
    ]);
    expect(problems({ ...rest, budget: { cpuMillicores: [1001], memoryMb: [512], maxReplicas: 4 } })).toEqual([
      'budget.maxReplicas: 1001m and 512 MB split into whole millicores and MB over no count from 2 to 4 replicas: give totals that divide evenly, e.g. 2000m and 1024 MB',
    ]);
    expect(problems({ ...rest, replicas: [2], budget: { cpuMillicores: [2000], memoryMb: [512], maxReplicas: 2 } })).toEqual([
      'budget.maxReplicas: give either "replicas" (the splits) or "budget.maxReplicas", not both',
    ]);
  });

  it('without a budget, caps are still required, and replicas take their caps from the host R times', () => {
    const { cpuMillicores: _c, ...noCpu } = base;
    expect(problems(noCpu)).toEqual([
      'cpuMillicores: is missing: give a list of CPU caps in millicores (1000 = one core), e.g. [500, 1000].',
    ]);
    expect(problems({ ...base, memoryMb: [1024], replicas: [1, 4, 8] }, { ...host, cores: 16 })).toEqual([
      "replicas: 8 replicas × 1024 MB is 8192 MB in total, more than this host's 4096 MB",
    ]);
  });
});

describe('what a matrix with the new dimensions expands into', () => {
  it('a 2000m / 1024 MB budget with workers 1 and 2: every split, asserted exactly', () => {
    const { cpuMillicores: _c, memoryMb: _m, ...rest } = base;
    const v = valid({ ...rest, budget: { cpuMillicores: [2000], memoryMb: [1024] } });
    // Default splits: 1 to the total in whole cores (2), each an even split of both totals.
    expect(triples(v.matrix)).toEqual([
      [1, 2000, 1024, 1],
      [1, 2000, 1024, 2],
      [2, 1000, 512, 1],
      [2, 1000, 512, 2],
    ]);
    expect(v.cells).toBe(4);
    // A replica count of 1 is the old default: the field is left out, so the cell reads as before.
    expect(expandMatrix(v.matrix)[0]).not.toHaveProperty('replicas');
    expect(expandMatrix(v.matrix)[2]).toMatchObject({ replicas: 2 });
  });

  it('a budget over a range skips counts that do not split evenly; named counts are kept in order', () => {
    const { cpuMillicores: _c, memoryMb: _m, ...rest } = base;
    const range = valid({ ...rest, workers: [1], budget: { cpuMillicores: [3000], memoryMb: [1024], maxReplicas: 4 } });
    // 1024 MB over 3 is not whole MB: that split is left out.
    expect(triples(range.matrix)).toEqual([
      [1, 3000, 1024, 1],
      [2, 1500, 512, 1],
      [4, 750, 256, 1],
    ]);
    const named = valid({ ...rest, workers: [1], replicas: [4, 1], budget: { cpuMillicores: [4000], memoryMb: [1024] } });
    expect(triples(named.matrix)).toEqual([
      [4, 1000, 256, 1],
      [1, 4000, 1024, 1],
    ]);
  });

  it('replicas, Node.js versions and flag sets multiply the cells; each cell has only the fields it needs', () => {
    const v = valid({ ...base, workers: [1], replicas: [1, 2], node: ['20', '22.11.0'], nodeFlags: [[], ['--max-semi-space-size=32']] });
    const cells = expandMatrix(v.matrix);
    expect(cells).toHaveLength(8);
    expect(v.cells).toBe(8);
    expect(countCells(v.matrix)).toBe(8);
    const dims = cells.map((c) => [c.node, c.nodeFlags ?? null, c.replicas ?? 1]);
    expect(dims).toEqual([
      ['20', null, 1],
      ['20', null, 2],
      ['20', ['--max-semi-space-size=32'], 1],
      ['20', ['--max-semi-space-size=32'], 2],
      ['22.11.0', null, 1],
      ['22.11.0', null, 2],
      ['22.11.0', ['--max-semi-space-size=32'], 1],
      ['22.11.0', ['--max-semi-space-size=32'], 2],
    ]);
    expect(cells[0]).not.toHaveProperty('nodeFlags');
    expect(cells[0]).not.toHaveProperty('replicas');
  });

  it('an image app brings its own Node.js: a "node" list is refused for it (tests/unit/dimension-apps.test.ts); expanded anyway, one cell for it, replicas still apply', () => {
    const input = { ...base, apps: ['json', 'mine'], workers: [1], replicas: [2], node: ['20', '22'] };
    const refused = validateMatrix(input, { ...host, imageApps: { mine: { fixed: true } } });
    expect(refused.ok ? [] : refused.problems.map((p) => p.path)).toEqual(['node']);
    const v = valid(input);
    const cells = expandMatrix(v.matrix, { mine: { fixed: true } });
    expect(cells.map((c) => [c.app, c.node ?? 'default', c.replicas])).toEqual([
      ['json', '20', 2],
      ['json', '22', 2],
      ['mine', 'default', 2],
    ]);
    expect(countCells(v.matrix, { mine: { fixed: true } })).toBe(3);
  });

  it('an old matrix expands exactly as before: no new field on any cell', () => {
    const cells = expandMatrix(valid({ ...base, cpuMillicores: [500, 1000] }).matrix);
    expect(cells.map((c) => [c.cpuMillis, c.workers])).toEqual([
      [500, 1],
      [500, 2],
      [1000, 1],
      [1000, 2],
    ]);
    for (const c of cells) for (const k of ['replicas', 'node', 'nodeFlags']) expect(c).not.toHaveProperty(k);
  });

  it('the large-matrix confirmation and the seeded shuffle count the new dimensions', () => {
    const big = { ...base, workers: [1, 2, 3, 4, 5], cpuMillicores: [500, 1000], memoryMb: [128, 256, 512], node: ['18', '20', '22', '24'], nodeFlags: [[], ['--jitless']], replicas: [1, 2], repetitions: 2 };
    // 5 workers × 2 cpu × 3 memory × 4 versions × 2 flag sets × 2 replica counts × 2 repetitions = 960
    expect(problems(big)).toEqual(['(matrix): 960 cells is more than 500: confirm to run it (CLI --yes, JSON "confirmLarge": true)']);
    const shuffled = valid({ ...big, confirmLarge: true, order: 'shuffle', seed: 7 }).matrix;
    const a = expandMatrix(shuffled);
    expect(a).toHaveLength(960);
    expect(expandMatrix(shuffled)).toEqual(a);
    expect(new Set(a.map((c) => c.node)).size).toBe(4);
    expect(a.map((c) => c.index)).toEqual([...a.keys()]);
  });
});

describe('cores before Start', () => {
  it('says when the largest cell’s replicas and its load cannot each have cores of their own', () => {
    const m = (replicas: number[]): Matrix => valid({ ...base, replicas }, { ...host, cores: 16 }).matrix;
    expect(coresShortfall(m([1]), 4)).toBeNull();
    expect(coresShortfall(m([1, 3]), 4)).toBeNull(); // 3 × 1 core + 1 for the load
    expect(coresShortfall(m([4]), 4)).toEqual({ apart: 5, together: 5, have: 4 });
    const halves = valid({ ...base, cpuMillicores: [500], replicas: [4] }).matrix;
    // 4 × 500m: 4 cores apart, or the 2 cores of their total together, plus one for the load
    expect(coresShortfall(halves, 4)).toEqual({ apart: 5, together: 3, have: 4 });
  });
});
