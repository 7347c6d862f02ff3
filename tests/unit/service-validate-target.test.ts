// Validation where the cells run, through the contract: a saved Kubernetes target (the fake API
// server, its nodes chosen per test) bounds a matrix or an auto-size request by its largest free
// node, whatever this machine has; `matrix.validate`, `size.validate`, `runs.start` and `runs.size`
// give the verdict the CLI's run gives (limitsWhereCellsRun + validateMatrix / validateSizeSpec),
// only ask the target (nothing swept, nothing made), and say so in `note` when it does not answer.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { appLibrary } from '../../src-main/apps/library.ts';
import type { EngineInfo } from '../../src-main/docker/client.ts';
import { validateSizeSpec } from '../../src-main/engine/auto-size/spec.ts';
import { MatrixInvalidError, validateMatrix, type Problem } from '../../src-main/engine/matrix.ts';
import { limitsWhereCellsRun } from '../../src-main/engine/run/limits.ts';
import type { Provider } from '../../src-main/providers/provider.ts';
import { Lab } from '../../src-main/service/lab.ts';
import { Store } from '../../src-main/store/index.ts';
import { TargetRegistry } from '../../src-main/targets/registry.ts';
import { dispatch } from '../../src-main/transports/dispatch.ts';
import { tempDir } from '../helpers/cli.ts';
import { FakeApi, fixture, listOf } from './k8s-fake-api.ts';

// The runs themselves need Docker: here they go as far as the CLI's run goes before it builds
// anything (the limits where cells run, the matrix checked against them), then stop with an id.
const started = vi.hoisted(() => ({ matrix: [] as unknown[], search: [] as unknown[] }));
vi.mock('../../src-main/engine/run-matrix.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src-main/engine/run-matrix.ts')>();
  return {
    ...real,
    runMatrix: async (input: unknown, o: { store: Store; provider?: Provider; onRunId?: (id: number) => void }) => {
      const { limits } = await real.limitsWhereCellsRun(ENGINE, appLibrary(o.store), o.provider);
      const v = validateMatrix(input, limits);
      if (!v.ok) throw new MatrixInvalidError(v.problems);
      started.matrix.push(input);
      o.onRunId?.(started.matrix.length);
      return { runId: started.matrix.length, status: 'completed', cells: [] };
    },
  };
});
vi.mock('../../src-main/engine/auto-size/run-search.ts', () => ({
  runSearch: async (input: unknown, o: { onRunId?: (id: number) => void }) => {
    started.search.push(input);
    o.onRunId?.(100 + started.search.length);
    return {};
  },
}));

/** This machine's engine as start-up found it (no Docker is asked here). */
const ENGINE: EngineInfo = {
  version: '27.0.0',
  cgroupVersion: '2',
  cpus: os.cpus().length,
  memoryBytes: os.totalmem(),
  os: 'linux',
  bridgeRoutable: true,
};
const LOCAL_CORES = os.cpus().length;

/** A Ready, schedulable worker of the recorded cluster with `cpus` allocatable CPUs and `memory`. */
function node(name: string, cpus: number, memory = '16Gi', extra: Record<string, unknown> = {}): unknown {
  const worker = fixture<{ items: Record<string, Record<string, unknown>>[] }>('nodes.json').items[1]!;
  const status = worker.status as { allocatable: Record<string, string> };
  return {
    ...worker,
    metadata: { ...worker.metadata, name },
    spec: { ...worker.spec, ...extra },
    status: { ...status, allocatable: { ...status.allocatable, cpu: String(cpus), memory } },
  };
}

/** Two nodes (the target alone on one, its load on the other): the check passes. */
const cluster = (cpus: number, memory?: string): unknown[] => [node('n1', cpus, memory), node('n2', cpus, memory)];

const matrix = (cpuMillicores: number, memoryMb = 256) => ({
  apps: ['hello'],
  modes: ['cluster'],
  workers: [1],
  cpuMillicores: [cpuMillicores],
  memoryMb: [memoryMb],
  durationSec: 10,
  warmupSec: 2,
});
const spec = (maxMillis: number) => ({
  app: 'hello',
  slo: { p99Ms: 50 },
  rate: 500,
  bounds: { cpuMillis: { min: 250, max: maxMillis }, memoryMb: { min: 128, max: 256 }, workers: { min: 1, max: 2 } },
});

let api: FakeApi;
let store: Store;
let lab: Lab;
let dir: string;

/** The fake cluster answers with these nodes (later routes win over earlier ones). */
const nodes = (items: unknown[]): void => void api.on('GET', '/api/v1/nodes', listOf('NodeList', items));

beforeEach(async () => {
  started.matrix.length = 0;
  started.search.length = 0;
  api = await new FakeApi().start();
  api.on('GET', '/version', { json: fixture('version.json') });
  api.on('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', (r) => ({
    status: 201,
    json: { ...fixture<Record<string, unknown>>('ssar-allowed.json'), spec: (r.body as { spec: unknown }).spec },
  }));
  api.on('GET', '/api/v1/pods', listOf('PodList', []));
  api.on('GET', '/api/v1/namespaces', listOf('NamespaceList', []));
  dir = tempDir('rightsize-service-validate-');
  const kubeconfig = path.join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, api.kubeConfig().exportConfig());
  store = Store.open(path.join(dir, 'v.db'));
  lab = await Lab.open({
    store,
    startup: { interruptedRuns: [], sweptContainers: [], engine: ENGINE },
    recheckMs: { down: 60_000, up: 60_000 },
  });
  const saved = await dispatch(lab, 'targets.add', {
    target: { name: 'k8s', kind: 'kubernetes', settings: { kubeconfig, context: 'fake-ctx' } },
  });
  expect(saved).toMatchObject({ ok: true });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await lab.close();
  await api.close();
});

type Verdict = { ok: boolean; problems: Problem[]; note?: string; target?: string };
const call = async <T = Verdict>(name: string, input: unknown): Promise<T> => {
  const r = await dispatch(lab, name, input);
  if (!r.ok) throw new Error(`${name}: ${r.error.code} ${r.error.message}`);
  return r.value as T;
};
const refusal = async (name: string, input: unknown) => {
  const r = await dispatch(lab, name, input);
  return r.ok ? undefined : r.error;
};

/** The CLI's verdict: the limits its run takes on the target (swept and checked), the same rules. */
async function cliVerdict(input: unknown, check = validateMatrix as (i: unknown, l: never) => { ok: boolean }) {
  const provider = new TargetRegistry(store).provider('k8s');
  const { limits } = await limitsWhereCellsRun(ENGINE, appLibrary(store), provider);
  return check(input, limits as never);
}

/** Nothing was made, changed or swept on the target: only reads and access reviews. */
const onlyAsked = (): void => {
  const writes = api.requests.filter((r) => r.method !== 'GET' && !r.pathname.endsWith('/selfsubjectaccessreviews'));
  expect(writes.map((r) => `${r.method} ${r.pathname}`)).toEqual([]);
  expect(api.calls('GET', '/api/v1/namespaces')).toEqual([]); // the sweep's first question
};

describe('validation against a saved target’s largest free node', () => {
  it.runIf(LOCAL_CORES >= 2)(
    'refuses more cores than the target’s largest node has, though this machine has them (as the CLI does)',
    async () => {
      nodes(cluster(1));
      const m = matrix(1500);
      expect((await call('matrix.validate', { matrix: m })).ok).toBe(true); // this machine: fine
      const r = await call('matrix.validate', { matrix: m, target: 'k8s' });
      expect(r).toMatchObject({ ok: false, target: 'k8s' });
      expect(r.problems).toEqual([
        { path: 'cpuMillicores', message: expect.stringContaining("1500m is more than this host's 1 cores") },
      ]);
      expect(r.note).toBeUndefined();
      onlyAsked();
      const refused = await refusal('runs.start', { matrix: m, target: 'k8s' });
      expect(refused).toMatchObject({ code: 'MATRIX_INVALID', fields: [{ path: 'cpuMillicores' }] });
      expect(started.matrix).toEqual([]);
      onlyAsked();
      expect((await cliVerdict(m)).ok).toBe(r.ok);
    },
  );

  it('accepts more cores than this machine has when the target’s node has them (as the CLI does)', async () => {
    const cpus = Math.max(8, LOCAL_CORES + 2);
    nodes(cluster(cpus));
    const m = matrix((LOCAL_CORES + 1) * 1000);
    const here = await call('matrix.validate', { matrix: m });
    expect(here.problems.map((p) => p.path)).toEqual(['cpuMillicores']); // this machine: too many
    const r = await call('matrix.validate', { matrix: m, target: 'k8s' });
    expect(r).toMatchObject({ ok: true, problems: [], target: 'k8s', cells: 1, cellsAtOnce: 1 });
    expect(r.note).toBeUndefined();
    onlyAsked();
    expect(await call('runs.start', { matrix: m, target: 'k8s' })).toEqual({ runId: 1 });
    expect(started.matrix).toEqual([m]);
    expect((await cliVerdict(m)).ok).toBe(r.ok);
  });

  it('bounds memory by the node too', async () => {
    nodes(cluster(8, '512Mi'));
    const m = matrix(1000, 1024);
    const r = await call('matrix.validate', { matrix: m, target: 'k8s' });
    expect(r.problems).toEqual([
      { path: 'memoryMb', message: expect.stringContaining("more than this host's 512 MB") },
    ]);
    expect((await cliVerdict(m)).ok).toBe(false);
  });

  it('uses the largest node that is free: a bigger busy (cordoned) one does not count', async () => {
    const cpus = Math.max(4, LOCAL_CORES + 2);
    nodes([node('big', 4 * cpus, '64Gi', { unschedulable: true }), ...cluster(cpus)]);
    const fits = matrix((LOCAL_CORES + 1) * 1000);
    const tooBig = matrix((cpus + 1) * 1000);
    const r = await call('matrix.validate', { matrix: tooBig, target: 'k8s' });
    expect(r.problems.map((p) => p.path)).toEqual(['cpuMillicores']);
    expect((await call('matrix.validate', { matrix: fits, target: 'k8s' })).ok).toBe(true);
    expect((await cliVerdict(tooBig)).ok).toBe(false);
    expect((await cliVerdict(fits)).ok).toBe(true);
  });

  it('no free node: a problem at "target" in words, and runs.start refuses (so does the CLI)', async () => {
    nodes([node('n1', 8, '16Gi', { unschedulable: true }), node('n2', 8, '16Gi', { unschedulable: true })]);
    const r = await call('matrix.validate', { matrix: matrix(1000), target: 'k8s' });
    expect(r.ok).toBe(false);
    expect(r.problems).toEqual([
      {
        path: 'target',
        message: expect.stringMatching(/^the target "k8s" is not ready: No nodes free: 0 of 2 can take a cell now/),
      },
    ]);
    expect(r.problems[0]!.message).toContain('n1 is cordoned');
    expect(await refusal('runs.start', { matrix: matrix(1000), target: 'k8s' })).toMatchObject({
      code: 'MATRIX_INVALID',
      fields: [{ path: 'target' }],
    });
    onlyAsked();
    await expect(cliVerdict(matrix(1000))).rejects.toThrow(/The target "k8s" is not ready/);
  });

  it.runIf(LOCAL_CORES >= 2)('auto-size: size.validate and runs.size check the bounds on the node', async () => {
    nodes(cluster(1));
    const s = spec(1500);
    expect((await call('size.validate', { spec: s })).ok).toBe(true);
    const r = await call('size.validate', { spec: s, target: 'k8s' });
    expect(r).toMatchObject({ ok: false, target: 'k8s', problems: [{ path: 'bounds.cpuMillis' }] });
    const refused = await refusal('runs.size', { spec: s, target: 'k8s' });
    expect(refused).toMatchObject({ code: 'SIZE_INVALID', fields: [{ path: 'bounds.cpuMillis' }] });
    expect(started.search).toEqual([]);
    expect(await call('runs.size', { spec: spec(1000), target: 'k8s' })).toEqual({ runId: 101 });
    onlyAsked();
    expect((await cliVerdict(s, validateSizeSpec as never)).ok).toBe(false);
    expect((await cliVerdict(spec(1000), validateSizeSpec as never)).ok).toBe(true);
  });

  it('estimates with the target’s cells at once: 4 free nodes run 2 cells at once, in half the time', async () => {
    nodes([node('n1', 4), node('n2', 4), node('n3', 4), node('n4', 4)]);
    const m = { ...matrix(1000), workers: [1, 2], cpuMillicores: [500, 1000] }; // 4 cells
    type Check = Verdict & { etaSec: number; estimate: { gridSec: number } };
    const here = await call<Check>('matrix.validate', { matrix: m });
    const there = await call<Check>('matrix.validate', { matrix: m, target: 'k8s' });
    expect(here).toMatchObject({ ok: true, cells: 4, cellsAtOnce: 1 });
    expect(there).toMatchObject({ ok: true, cells: 4, cellsAtOnce: 2, target: 'k8s' });
    expect(there.estimate.gridSec).toBeCloseTo(here.estimate.gridSec / 2, 6); // settling and verification do not halve
    expect(there).not.toHaveProperty('forecast');
  });

  it('an unknown target: a problem at "target" with did-you-mean; runs.start: NOT_FOUND', async () => {
    const r = await call('matrix.validate', { matrix: matrix(1000), target: 'k8z' });
    expect(r).toMatchObject({ ok: false, target: 'k8z' });
    expect(r.problems).toEqual([
      { path: 'target', message: expect.stringContaining('There is no target named "k8z". Did you mean "k8s"?') },
    ]);
    expect(await refusal('runs.start', { matrix: matrix(1000), target: 'k8z' })).toMatchObject({ code: 'NOT_FOUND' });
    expect(api.requests).toEqual([]);
  });

  it('asks the target once per ~30 s for all validations and starts', async () => {
    nodes(cluster(8));
    await call('matrix.validate', { matrix: matrix(1000), target: 'k8s' });
    await call('matrix.validate', { matrix: matrix(2000), target: 'k8s' });
    await call('size.validate', { spec: spec(1000), target: 'k8s' });
    await refusal('runs.start', { matrix: matrix(99_000), target: 'k8s' });
    expect(api.calls('GET', '/version')).toHaveLength(1);
  });
});

describe('a target that does not answer', () => {
  it('closed: a note in words, CPU and memory not checked against this machine, no crash', async () => {
    await api.close();
    const m = matrix((LOCAL_CORES + 1) * 1000);
    const t0 = performance.now();
    const r = await call('matrix.validate', { matrix: m, target: 'k8s' });
    expect(performance.now() - t0).toBeLessThan(2600);
    expect(r).toMatchObject({ ok: true, problems: [], target: 'k8s', cellsAtOnce: 1 });
    expect(r.note).toMatch(/^k8s did not answer \(.+\): CPU and memory were not checked against its nodes/);
    expect(r.note).toContain('estimate assumes one cell at a time');
    // A start is not refused on what is not known: the run's own check refuses it, as the CLI's does.
    expect(await refusal('runs.start', { matrix: m, target: 'k8s' })).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('The target "k8s" is not ready'),
    });
    // What does not depend on the nodes is still checked.
    const bad = await call('matrix.validate', { matrix: { ...m, workers: [0] }, target: 'k8s' });
    expect(bad.problems.map((p) => p.path)).toEqual(['workers']);
  });

  it('hanging: within ~2 s, said in words; the next validation does not wait again', async () => {
    api.on('GET', '/version', { stream: () => {} }); // headers, then nothing
    const t0 = performance.now();
    const r = await call('matrix.validate', { matrix: matrix(1000), target: 'k8s' });
    const ms = performance.now() - t0;
    expect(ms).toBeGreaterThanOrEqual(1900);
    expect(ms).toBeLessThan(2600);
    expect(r).toMatchObject({ ok: true, target: 'k8s' });
    expect(r.note).toMatch(/^k8s did not answer within 2 s: CPU and memory were not checked against its nodes/);
    const t1 = performance.now();
    expect((await call('matrix.validate', { matrix: matrix(1000), target: 'k8s' })).note).toBe(r.note);
    expect(performance.now() - t1).toBeLessThan(300);
  });

  it.runIf(LOCAL_CORES >= 2)('after an answer: checked against its nodes as they were, and says how old', async () => {
    nodes(cluster(1));
    expect((await call('matrix.validate', { matrix: matrix(1500), target: 'k8s' })).ok).toBe(false);
    api.on('GET', '/version', { stream: () => {} });
    const now = Date.now;
    vi.spyOn(Date, 'now').mockImplementation(() => now() + 31_000); // the answer is older than its 30 s
    const r = await call('matrix.validate', { matrix: matrix(1500), target: 'k8s' });
    expect(r.problems.map((p) => p.path)).toEqual(['cpuMillicores']);
    expect(r.note).toMatch(/^k8s did not answer within 2 s: checked against its nodes as they were 3\d s ago/);
    expect(await refusal('runs.start', { matrix: matrix(1500), target: 'k8s' })).toMatchObject({
      code: 'MATRIX_INVALID',
    });
  });
});
