// matrix.validate with a target: the estimate runs K = the target's concurrency() cells at once
// (the run's own ETA rule), an unknown name is a problem at 'target' with did-you-mean, and a target
// that does not answer costs the validation at most ~2 s and says so (K = 1).
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CALL_INPUTS } from '../../src-main/contract/schemas.ts';
import { SwarmProvider } from '../../src-main/providers/swarm/provider.ts';
import { Lab } from '../../src-main/service/lab.ts';
import { Store } from '../../src-main/store/index.ts';
import { tempDir } from '../helpers/cli.ts';

// 4 cells of 10 + 2 s (+ the per-cell overhead): the ETA with K = 2 is half the one with K = 1.
const matrix = { apps: ['hello'], modes: ['cluster'], workers: [1, 2], cpuMillicores: [500, 1000], memoryMb: [256], durationSec: 10, warmupSec: 2 };

let store: Store;
let lab: Lab;
beforeEach(async () => {
  store = Store.open(path.join(tempDir('rightsize-validate-target-'), 'v.db'));
  // A Swarm whose manager nobody answers at (a blackhole address: connections hang, or fail at once offline).
  store.targets.add({ name: 'lab-swarm', kind: 'swarm', settings: { managerUrl: 'tcp://10.255.255.1:2375', nodeEngines: { n1: 'tcp://10.255.255.1:2376' } } });
  lab = await Lab.open({ store, startup: { interruptedRuns: [], sweptContainers: [], dockerError: 'not needed here' }, recheckMs: { down: 60_000, up: 60_000 } });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await lab.close();
});

/** The Swarm's answer to a check: two free nodes as large as this test's matrix needs. */
const twoFreeNodes = {
  ok: true,
  problems: [],
  nodes: ['n1', 'n2'].map((name) => ({ name, cpus: 4, memoryBytes: 8 * 2 ** 30, free: true })),
};

/** What a target that never answered is said to be: its nodes unchecked, one cell at a time. */
const NO_ANSWER = /^lab-swarm did not answer \(.*\): CPU and memory were not checked against its nodes .*; estimate assumes one cell at a time$/;

const validate = (input: { matrix: unknown; target?: string }) => Promise.resolve(lab.handlers['matrix.validate'](input));

describe('matrix.validate with a target', () => {
  it('accepts an optional target name in the contract, and nothing else', () => {
    expect(CALL_INPUTS['matrix.validate'].safeParse({ matrix, target: 'lab-swarm' }).success).toBe(true);
    expect(CALL_INPUTS['matrix.validate'].safeParse({ matrix }).success).toBe(true);
    expect(CALL_INPUTS['matrix.validate'].safeParse({ matrix, target: '' }).success).toBe(false);
    expect(CALL_INPUTS['matrix.validate'].safeParse({ matrix, target: 2 }).success).toBe(false);
  });

  it('halves the ETA on a target whose provider runs 2 cells at once, and asks it once per ~30 s', async () => {
    vi.spyOn(SwarmProvider.prototype, 'check').mockResolvedValue(twoFreeNodes);
    const concurrency = vi.spyOn(SwarmProvider.prototype, 'concurrency').mockResolvedValue(2);
    const one = await validate({ matrix });
    const two = await validate({ matrix, target: 'lab-swarm' });
    expect(one).toMatchObject({ ok: true, cells: 4, cellsAtOnce: 1 });
    expect(one.target).toBeUndefined();
    expect(two).toMatchObject({ ok: true, cells: 4, cellsAtOnce: 2, target: 'lab-swarm', problems: [] });
    expect(two.note).toBeUndefined();
    // The grid runs 2 at once; settling and verification, one cell at a time, do not halve.
    expect(two.estimate!.gridSec).toBeCloseTo(one.estimate!.gridSec / 2, 6);
    expect(two.etaSec - two.estimate!.gridSec).toBeCloseTo(one.etaSec - one.estimate!.gridSec, 6);
    expect((await validate({ matrix, target: 'local' })).cellsAtOnce).toBe(1);
    await validate({ matrix, target: 'lab-swarm' });
    expect(concurrency).toHaveBeenCalledTimes(1); // cached per target name
  });

  it('never runs more cells at once than there are (the run pool rule)', async () => {
    vi.spyOn(SwarmProvider.prototype, 'check').mockResolvedValue(twoFreeNodes);
    vi.spyOn(SwarmProvider.prototype, 'concurrency').mockResolvedValue(5);
    expect(await validate({ matrix: { ...matrix, workers: [1], cpuMillicores: [500] }, target: 'lab-swarm' })).toMatchObject({ ok: true, cells: 1, cellsAtOnce: 1 });
    expect(await validate({ matrix, target: 'lab-swarm' })).toMatchObject({ cells: 4, cellsAtOnce: 4 });
  });

  it('an unknown target name is a problem at "target" in words, with did-you-mean', async () => {
    const r = await validate({ matrix, target: 'lab-swram' });
    expect(r.ok).toBe(false);
    expect(r.problems).toEqual([{ path: 'target', message: expect.stringContaining('There is no target named "lab-swram". Did you mean "lab-swarm"?') }]);
    expect(r.problems[0]!.message).toContain('Targets: local, lab-swarm.');
  });

  it('a target that does not answer: K = 1 within ~2 s, said in words, and the next validation does not wait again', async () => {
    vi.spyOn(SwarmProvider.prototype, 'concurrency').mockImplementation(() => new Promise<number>(() => {})); // never answers
    const t0 = performance.now();
    const r = await validate({ matrix, target: 'lab-swarm' });
    const ms = performance.now() - t0;
    expect(ms).toBeGreaterThanOrEqual(1900);
    expect(ms).toBeLessThan(2600);
    expect(r).toMatchObject({ ok: true, cellsAtOnce: 1, target: 'lab-swarm', note: expect.stringMatching(NO_ANSWER) });
    expect(r.etaSec).toBe((await validate({ matrix })).etaSec);
    const t1 = performance.now();
    expect((await validate({ matrix, target: 'lab-swarm' })).cellsAtOnce).toBe(1);
    expect(performance.now() - t1).toBeLessThan(300);
  });

  it('a saved Swarm at an unreachable address (no fake): K = 1 within the bound', async () => {
    const t0 = performance.now();
    const r = await validate({ matrix, target: 'lab-swarm' });
    expect(performance.now() - t0).toBeLessThan(2600);
    expect(r).toMatchObject({ ok: true, cellsAtOnce: 1, note: expect.stringMatching(NO_ANSWER) });
  });
});
