import { describe, expect, it } from 'vitest';
import { validateMatrix, type HostLimits } from '../../src-main/engine/matrix.ts';

// The new dimensions against the apps and the load: refused before a run exists, with every problem
// at once, never silently dropped.
const host: HostLimits = { cores: 4, memoryMb: 4096, apps: ['hello', 'web'], imageApps: { web: { fixed: false, workersEnv: 'WEB_WORKERS' } } };
const base = { cpuMillicores: [500], memoryMb: [256], workers: [1], modes: ['cluster'] };
const problems = (m: Record<string, unknown>) => {
  const v = validateMatrix({ ...base, ...m }, host);
  return v.ok ? [] : v.problems.map((p) => `${p.path}: ${p.message}`);
};

describe("an image app's worker-count variable", () => {
  it('is not a setting: the workers dimension sets it, so a setting over it is refused', () => {
    expect(problems({ apps: ['web'], envMatrix: { WEB_WORKERS: ['2', '4'] } })).toEqual([
      'envMatrix.WEB_WORKERS: WEB_WORKERS is how web reads its worker count: give the counts in "workers", not as a setting',
    ]);
    expect(problems({ apps: ['web'], envMatrix: { PG_POOL_SIZE: ['2', '4'] } })).toEqual([]);
  });
});

describe('an image app with the Node.js dimensions', () => {
  it('a "node" list is refused for it (its Node.js is its own), not dropped', () => {
    expect(problems({ apps: ['hello', 'web'], node: ['20', '22'] })).toEqual([
      'node: app web runs its own image; its Node.js version is its image\'s: run it without "node", or build it on ' +
        "Rightsize's base (a project folder, `--base rightsize`) for each version",
    ]);
    expect(problems({ apps: ['hello'], node: ['20', '22'] })).toEqual([]);
  });

  it('takes flags only through NODE_OPTIONS: a flag Node refuses there is named, per flag set', () => {
    expect(problems({ apps: ['web'], nodeFlags: [[], ['--max-semi-space-size=32'], ['--max-old-space-size=200']] })).toEqual([]);
    const out = problems({ apps: ['web'], nodeFlags: [[], ['--no-opt']] });
    expect(out).toEqual([
      "nodeFlags.1: app web runs its own image's command: Rightsize can give it flags only through " +
        'NODE_OPTIONS, and Node.js refuses --no-opt there',
    ]);
    // A built-in app takes it on its command line.
    expect(problems({ apps: ['hello'], nodeFlags: [['--no-opt']] })).toEqual([]);
  });
});

describe('connections and replicas', () => {
  it('every replica needs a connection: fewer connections than replicas are refused before the run', () => {
    expect(problems({ apps: ['hello'], replicas: [1, 3], load: { model: 'closed', connections: [2, 20] } })).toEqual([
      'load.connections: 2 connection(s) cannot reach 3 replicas: each replica needs at least one (the load spreads ' +
        'per connection, as a Kubernetes Service does); use at least 3 connections',
    ]);
    expect(problems({ apps: ['hello'], replicas: [2], load: { model: 'closed', connections: [2] } })).toEqual([]);
  });

  it('counts a budget’s splits as replicas too', () => {
    const budget = { cpuMillicores: [2000], memoryMb: [1024] };
    const { cpuMillicores: _c, memoryMb: _m, ...rest } = base;
    const v = validateMatrix({ ...rest, apps: ['hello'], budget, load: { model: 'closed', connections: [1] } }, host);
    expect(v.ok ? [] : v.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/^1 connection\(s\) cannot reach 2 replicas/),
    ]);
  });
});
