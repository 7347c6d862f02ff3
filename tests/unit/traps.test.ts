// The container traps on constructed readings (issue 45): each check decided from what the processes
// said of their box against the cell's caps, the words the answer says of them, one summary bullet at
// most and the whole of them under --explain.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { recommend } from '../../src-main/analysis/index.ts';
import { cellTraps, runtimeSeen, trapsOf } from '../../src-main/analysis/decide/traps.ts';
import { trapNotes } from '../../src-main/analysis/explain/trap-words.ts';
import { builtInApps } from '../../src-main/apps/catalog.ts';
import { hostInstances, readEcosystem } from '../../src-main/apps/ecosystem.ts';
import { deployedSettings } from '../../src-main/deploy/settings.ts';
import { composeSnippet, kubernetesSnippet, pinnedPoolOf, pm2Snippet, type DeployInput } from '../../src-main/deploy/snippets.ts';
import { composeProblems, kubernetesContainerProblems } from '../helpers/deploy-schemas.ts';
import type { ProbeSecond, ProcessRole } from '../../src-main/model/probe.ts';
import type { RuntimeReading } from '../../src-main/model/runtime.ts';
import type { StoredCell } from '../../src-main/model/stored.ts';
import type { LoadResult } from '../../src-main/model/types.ts';
import { parseProbeLog, parseRuntimeLine } from '../../src-main/probe/parse.ts';
import { cell, reps, run, type CellSpec } from '../helpers/run-fixture.ts';

const MB = 2 ** 20;

const reading = (over: Partial<RuntimeReading> = {}): RuntimeReading => ({
  node: '20.20.2',
  cpus: 2,
  parallelism: 1,
  constrainedMemory: 256 * MB,
  heapLimitBytes: 259 * MB,
  threadpool: 4,
  cgroup: 2,
  heapPercentFlag: false,
  ...over,
});

/** A cell whose probe heard `roles` (pids 100, 101, …), each with `r` (or its own), and reached its load. */
function probed(spec: CellSpec, roles: ProcessRole[], r: RuntimeReading | ((i: number) => RuntimeReading) = reading()): StoredCell {
  const c = cell(spec);
  const processes = roles.map((role, i) => ({ pid: 100 + i, role, runtime: typeof r === 'function' ? r(i) : r }));
  return { ...c, load: {} as LoadResult, probe: { attached: roles.length, expected: roles.length, processes } };
}

/** Per process and second: `heapTotal` and `rss` in MB, its heap limit from its reading. */
function seconds(roles: ProcessRole[], heapTotalMb: number, rssMb: number, secs = 3, limitMb = 259): ProbeSecond[] {
  return Array.from({ length: secs }, (_, t) =>
    roles.map((role, i) => ({
      t, pid: 100 + i, ppid: 1, role, elu: 0.5, delayP50Ms: 1, delayP99Ms: 2, delayMaxMs: 3, gcMs: 0,
      gcCounts: { scavenge: 0, markSweepCompact: 0, incremental: 0, weakCallbacks: 0 }, gcMaxPauseMs: 0,
      heapUsedBytes: heapTotalMb * MB * 0.6, heapTotalBytes: heapTotalMb * MB, heapLimitBytes: limitMb * MB,
      rssBytes: rssMb * MB, externalBytes: 0, arrayBuffersBytes: 0, activeResources: null,
      voluntaryCtxSwitches: null, involuntaryCtxSwitches: null,
    })),
  ).flat();
}

describe('the probe says what each process saw of its box, once at start', () => {
  it('parses its line, and a log keeps it by pid beside the seconds', () => {
    const line = 'rightsize:probe-runtime {"pid":7,"node":"22.12.0","cpus":48,"parallelism":2,"constrainedMemory":536870912,"heapLimitBytes":285212672,"threadpool":4,"cgroup":2,"heapPercentFlag":false}';
    expect(parseRuntimeLine(line)).toEqual({
      pid: 7,
      runtime: { node: '22.12.0', cpus: 48, parallelism: 2, constrainedMemory: 512 * MB, heapLimitBytes: 272 * MB, threadpool: 4, cgroup: 2, heapPercentFlag: false },
    });
    expect(parseRuntimeLine('rightsize:probe-runtime {"pid":7,"node":"22"')).toBeUndefined(); // cut short
    expect(parseProbeLog(`noise\n${line}\n`).runtimes.get(7)?.cpus).toBe(48);
  });
});

describe('forks by the host', () => {
  it('a single process that forked one worker per os.cpus(): more than asked, and as many as the host has', () => {
    const c = probed({ mode: 'single', cpu: 1000 }, ['primary', 'worker', 'worker']);
    const [f] = cellTraps({ cell: c, seconds: undefined });
    expect(f).toEqual({ kind: 'forks-by-host', asked: 1, seen: 2, hostCpus: 2, capCpus: 1 });
    const [note] = trapNotes({ findings: [{ ...f!, key: 'k', cells: 1, of: 1 }], seen: [], configurations: recommend(run([c])).configurations.map((x) => ({ ...x, key: 'k' })), causes: [], comparisons: [], probed: true, probeOff: false, limitMb: () => null });
    expect(note!.text).toMatch(/^Hello started 2 serving processes where the matrix asked for 1, as many as os\.cpus\(\) says \(in a 1 CPU container on this 2-core host, os\.cpus\(\) says 2\)\. Counted that way it starts 48 on a 48-core node/);
  });

  it('workers counted at once: a replaced worker (a new pid in a later second) is not one more', () => {
    const c = probed({ mode: 'cluster', workers: 2 }, ['primary', 'worker', 'worker', 'worker']);
    const s = seconds(['primary', 'worker', 'worker', 'worker'], 10, 50).filter((x) => !(x.pid === 103 && x.t < 2) && !(x.pid === 102 && x.t >= 2));
    expect(cellTraps({ cell: c, seconds: s }).map((f) => f.kind)).not.toContain('forks-by-host');
  });

  it("an ecosystem file's instances: max is a trap whatever the matrix ran, said once for the app", () => {
    expect(['max', 0, -1, '0', '-1', 4, '4', undefined].map(hostInstances)).toEqual(['"max"', '0', '-1', '"0"', '"-1"', undefined, undefined, undefined]);
    const cells = [probed({ mode: 'pm2', workers: 1 }, ['pm2-daemon', 'worker']), probed({ mode: 'pm2', workers: 2 }, ['pm2-daemon', 'worker', 'worker'])];
    const r = run(cells);
    r.apps = [{ name: 'hello', source: { kind: 'folder', ecosystem: { file: 'ecosystem.config.js', app: 'api', instances: '"max"' } } }];
    const rec = recommend(r);
    expect(rec.trapFindings!.filter((f) => f.kind === 'forks-by-host')).toHaveLength(2);
    const notes = rec.traps!.filter((t) => t.kind === 'forks-by-host');
    expect(notes).toHaveLength(1);
    expect(notes[0]!.key).toBeNull();
    expect(notes[0]!.text).toContain('ecosystem.config.js says instances: "max", and PM2 counts os.cpus()');
    // Said of the pick in the summary: the instances it deploys.
    const pick = rec.headline!.key;
    const workers = rec.configurations.find((c) => c.key === pick)!.workers;
    expect(rec.summary.filter((b) => b.startsWith(`ecosystem.config.js says instances: "max": PM2 would start 2 here and 48 on a 48-core node; set instances: ${workers} (and `))).toHaveLength(1);
  });
});

describe('heap above the cap', () => {
  const roles: ProcessRole[] = ['primary', 'worker', 'worker'];

  it("two workers, each allowed V8's 259 MB, in a 256 MB container: the flag that fits, from the cgroup's peak", () => {
    const c = { ...probed({ mode: 'cluster', workers: 2, mem: 256 }, roles), memMaxBytes: 70 * MB };
    const f = cellTraps({ cell: c, seconds: seconds(roles, 20, 60) }).find((x) => x.kind === 'heap-above-cap');
    // The rest: the cgroup's 70 MB peak less the two serving heaps (20 MB each) = 30 MB; (256 − 30) × 0.9 ÷ 2 = 101.7,
    // rounded down to 8 MB steps (identical runs measure the rest a megabyte apart): 96.
    expect(f).toEqual({ kind: 'heap-above-cap', processes: 2, heapLimitMb: 259, otherMb: 30, memoryMb: 256, fitMb: 96, node: '20.20.2', fitPct: null });
  });

  it('a Node.js that takes --max-old-space-size-percentage gets it too; none fits in a box too small', () => {
    const c = { ...probed({ mode: 'cluster', workers: 2, mem: 256 }, roles, reading({ heapPercentFlag: true, node: '24.11.1' })), memMaxBytes: 70 * MB };
    expect(cellTraps({ cell: c, seconds: seconds(roles, 20, 60) }).find((x) => x.kind === 'heap-above-cap')).toMatchObject({ fitMb: 96, fitPct: 37 });
    const tiny = { ...probed({ mode: 'cluster', workers: 4, mem: 64 }, ['primary', 'worker', 'worker', 'worker', 'worker']), memMaxBytes: 60 * MB };
    const none = cellTraps({ cell: tiny, seconds: seconds(['primary', 'worker', 'worker', 'worker', 'worker'], 5, 30) }).find((x) => x.kind === 'heap-above-cap');
    expect(none).toMatchObject({ fitMb: null });
  });

  it('one process whose heap limit and the rest fit: no trap', () => {
    const c = { ...probed({ mode: 'single', mem: 512 }, ['single'], reading({ heapLimitBytes: 200 * MB })), memMaxBytes: 80 * MB };
    expect(cellTraps({ cell: c, seconds: seconds(['single'], 30, 80, 3, 200) })).toEqual([]);
  });
});

describe('parallelism the runtime misreads', () => {
  it("the host's count under half a CPU (Node 20), rounded down by half a CPU or more; not the 1 of half a CPU", () => {
    const at = (cpu: number, parallelism: number): string[] =>
      cellTraps({ cell: probed({ mode: 'single', cpu, mem: 1024 }, ['single'], reading({ parallelism, heapLimitBytes: 100 * MB })), seconds: undefined }).map((f) => f.kind);
    expect(at(500, 2)).toEqual(['parallelism']);
    expect(at(500, 1)).toEqual([]);
    expect(at(1250, 1)).toEqual([]);
    expect(at(1500, 1)).toEqual(['parallelism']);
    expect(at(2000, 2)).toEqual([]);
  });
});

describe('the answer says them: one summary bullet at most, all of them under --explain', () => {
  it('a pick with two traps: the weightier in the summary with how many more, both in the words', () => {
    const roles: ProcessRole[] = ['primary', 'worker', 'worker'];
    const cells = [0, 1, 2].map(() => ({ ...probed({ mode: 'cluster', workers: 2, cpu: 500, mem: 256 }, roles, reading({ parallelism: 2 })), memMaxBytes: 70 * MB }));
    const r = run(cells);
    const probe = new Map(r.cells.map((c) => [c.id, seconds(roles, 20, 60)]));
    const rec = recommend(r, { probe });
    expect(rec.traps!.map((t) => t.kind)).toEqual(['heap-above-cap', 'parallelism']);
    const bullets = rec.summary.filter((s) => /Heap above the cap|availableParallelism/.test(s));
    expect(bullets).toEqual([expect.stringMatching(/^Heap above the cap: 2 cluster workers on 0\.5 CPU \/ 256 MB lets V8 grow to 548 MB in 256 MB; --max-old-space-size=96 fits in 256 MB; at the 96 MB limit the answer gives it, --max-old-space-size=24 \(and 1 more trap: --explain\)\.$/)]);
    expect(rec.summary.length).toBeLessThanOrEqual(4);
    expect(rec.words.filter((w) => /V8's heap limit is 259 MB|os\.availableParallelism\(\) says 2 under a 0\.5 CPU cap/.test(w))).toHaveLength(2);
    expect(rec.runtime![0]!.server?.parallelism).toBe(2);
  });

  it('--no-probe: the checks were not made, and the answer says so', () => {
    const r = run(reps({}, [1000, 1010, 990]).map((c) => ({ ...c, load: {} as LoadResult })), { matrix: { apps: ['hello'], probe: false } });
    const rec = recommend(r);
    expect(rec.traps).toEqual([expect.objectContaining({ kind: 'not-checked', short: 'The container traps were not checked: the runtime probe was off (--no-probe).' })]);
    expect(rec.summary).toContain('The container traps were not checked: the runtime probe was off (--no-probe).');
  });

  it('the libuv pool: its size as read, and the sizes the matrix tried beside it with their intervals', () => {
    const seen = [{ key: 'a', server: reading({ threadpool: 1 }), supervisor: null, capCpus: 1, memoryMb: 256 }];
    const [low] = recommend(run(reps({}, [100, 102, 98]))).configurations;
    const [high] = recommend(run(reps({}, [300, 305, 295]))).configurations;
    const [one, four] = [{ ...low!, key: 'a', envSet: { UV_THREADPOOL_SIZE: '1' } }, { ...high!, key: 'b', envSet: { UV_THREADPOOL_SIZE: '4' } }];
    const notes = trapNotes({
      findings: [], seen, configurations: [one, four], probed: true, probeOff: false, limitMb: () => null, comparisons: [],
      causes: [{ kind: 'off-loop', key: 'a', scope: null, scopeLabel: null, text: '' }],
    });
    expect(notes).toHaveLength(1);
    expect(notes[0]!.text).toMatch(/requests wait on the libuv pool, not the event loop; UV_THREADPOOL_SIZE is 1 in every process\. The matrix tried other sizes beside it: 1 threads: 100 req\/s \(95 % interval \d+–\d+\); 4 threads: 300 req\/s/);
  });

  it('two Node.js versions that saw the box differently, with what the contest said of their results', () => {
    const seen = runtimeSeen(
      run([probed({ app: 'a' }, ['single'], reading({ node: '20.20.2', parallelism: 2 })), probed({ app: 'b' }, ['single'], reading({ node: '22.23.0', parallelism: 1 }))]),
      recommend(run([cell({ app: 'a' }), cell({ app: 'b' })])).configurations,
    );
    const notes = trapNotes({
      findings: [], seen, configurations: [], causes: [], probed: true, probeOff: false, limitMb: () => null,
      comparisons: [{ kind: 'version', scopeKey: 's', keys: [seen[1]!.key, seen[0]!.key], relation: 'equivalent', text: 'Node 22 and Node 20 are equivalent here.' }],
    });
    expect(notes.map((n) => n.text)).toEqual([
      'Node 22.23.0 saw os.availableParallelism() 1, heap limit 259 MB; Node 20.20.2 saw os.availableParallelism() 2, heap limit 259 MB, in the same box. Node 22 and Node 20 are equivalent here.',
    ]);
  });

  it('a configuration whose cells all match their caps has no trap, and trapsOf counts cells of cells', () => {
    const fine = probed({ mode: 'single', cpu: 1000, mem: 1024 }, ['single'], reading({ heapLimitBytes: 300 * MB }));
    const r = run([fine, { ...fine }, probed({ mode: 'single', cpu: 1000, mem: 1024 }, ['single'], reading({ heapLimitBytes: 300 * MB, parallelism: 2 }))]);
    const [f, ...rest] = trapsOf(r, recommend(r).configurations, undefined);
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ kind: 'parallelism', cells: 1, of: 3 });
  });
});

describe('the snippets set what the traps found the runtime would otherwise guess', () => {
  const input = (over: Partial<DeployInput['config']> = {}, verification?: DeployInput['verification']): DeployInput => ({
    config: { app: 'json', mode: 'cluster', workers: 2, cpuMillis: 1000, memoryMb: 256, ...over },
    provenance: { runId: 3, runName: 'traps', load: { model: 'closed', connections: 8 }, goodput: null, p99Us: null, confidence: 'clear', pick: 'the knee' },
    ...(verification !== undefined ? { verification } : {}),
  });

  it('the heap: fit at the limit a verified container snippet deploys, set in NODE_OPTIONS with why; unverified, said and not set', () => {
    const fit = { otherMb: 22, processes: 2 };
    expect(deployedSettings('kubernetes', { ...input({ heapFit: fit }).config }, 128, true).heapMb).toBe(40); // (128 − 22) × 0.9 ÷ 2 = 47.7, in 8 MB steps
    expect(deployedSettings('kubernetes', { ...input({ heapFit: fit }).config }, 128, false).heapMb).toBeNull();
    expect(deployedSettings('kubernetes', { ...input().config }, 128, true).heapMb).toBeNull(); // no trap, no flag
    const unverified = kubernetesSnippet(input({ heapFit: fit }));
    expect(unverified).toContain('# Heap: V8 sizes each process\'s heap from the whole container, so its 2 serving processes can outgrow the limit');
    expect(unverified).not.toContain('NODE_OPTIONS');
    expect(kubernetesContainerProblems(parse(unverified) as Record<string, unknown>)).toEqual([]);
  });

  it('the pool: where requests waited on it, UV_THREADPOOL_SIZE as the processes read it, in every snippet', () => {
    const c = { key: 'k', envSet: undefined };
    const rec = { traps: [{ kind: 'threadpool' as const, key: 'k', short: '', text: '' }], runtime: [{ key: 'k', server: reading({ threadpool: 4 }), supervisor: null, capCpus: 1, memoryMb: 256 }] };
    expect(pinnedPoolOf(rec, c)).toBe(4);
    expect(pinnedPoolOf({ ...rec, traps: [] }, c)).toBeUndefined(); // no trap: left to libuv, as the cells ran
    expect(pinnedPoolOf(rec, { key: 'k', envSet: { UV_THREADPOOL_SIZE: '1' } })).toBeUndefined(); // the matrix set it
    const pinned = input({ env: { UV_THREADPOOL_SIZE: '4' }, pinnedPool: 4 });
    for (const text of [kubernetesSnippet(pinned), composeSnippet(pinned), pm2Snippet(pinned)]) {
      expect(text).toContain("UV_THREADPOOL_SIZE=4: set explicitly as its processes read it (libuv's default), since requests waited on the pool");
      expect(text).toMatch(/UV_THREADPOOL_SIZE(: |", value: |\n\s+value: )"4"|UV_THREADPOOL_SIZE: '4'/);
    }
    expect(composeProblems(parse(composeSnippet(pinned)))).toEqual([]);
    expect(kubernetesContainerProblems(parse(kubernetesSnippet(pinned)) as Record<string, unknown>)).toEqual([]);
  });
});

describe('the workers line where the app forked by the host', () => {
  it('says the count is set and that the app must read it', () => {
    const text = kubernetesSnippet({
      config: { app: 'forky', mode: 'single', workers: 1, cpuMillis: 500, memoryMb: 256, forkedByHost: { seen: 2, hostCpus: 2 } },
      provenance: { runId: 3, runName: 'traps', load: { model: 'closed', connections: 8 }, goodput: null, p99Us: null, confidence: 'clear', pick: 'the knee' },
    });
    expect(text).toContain('# Workers: 1, set explicitly: its app started 2 where 1 was asked (by os.cpus(), 2 here and 48 on a 48-core node)');
    expect(text).toMatch(/- name: WEB_CONCURRENCY\n\s+value: "1"/);
  });
});

describe("a built-in app's ecosystem file", () => {
  it("forky's manifest declares what its shipped ecosystem file says, and the answer names it", async () => {
    const forky = builtInApps().find((a) => a.name === 'forky')!;
    const eco = await readEcosystem(forky.dir, forky.ecosystem!.file);
    expect(eco.hostInstances).toBe(forky.ecosystem!.instances);
    const r = run([probed({ app: 'forky', mode: 'single' }, ['single'])]);
    r.apps = [forky];
    const note = recommend(r).traps!.find((t) => t.kind === 'forks-by-host');
    expect(note?.text).toContain('Forky\'s ecosystem.config.js says instances: "max", and PM2 counts os.cpus()');
  });
});
