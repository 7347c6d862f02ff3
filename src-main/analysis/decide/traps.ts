// The container traps, decided once per configuration from what its processes reported at start
// (model/runtime.ts) and what the probe measured each second, against the caps the cells ran under.
// Each is a comparison of readings with caps, never a guess: no reading, no finding.
import { heapFitMb } from '../../common/heap-fit.ts';
import { servingAtOnceOf } from '../../probe/attach.ts';
import type { ProbeSecond, ProcessRole } from '../../model/probe.ts';
import type { RuntimeReading } from '../../model/runtime.ts';
import type { RunDetail, StoredCell } from '../../model/stored.ts';
import type { RuntimeSeen, TrapFacts, TrapFinding } from '../trap-types.ts';
import type { ConfigurationSummary } from '../types.ts';
import { configurationKey } from './group.ts';

const MB = 2 ** 20;

/** A reading this many CPUs below the cap leaves that much of it to a pool sized by the reading. */
const ROUNDED_DOWN_CPUS = 0.5;

const SERVING: readonly ProcessRole[] = ['worker', 'single'];
const SUPERVISING: readonly ProcessRole[] = ['primary', 'pm2-daemon'];

type Processes = NonNullable<StoredCell['probe']>['processes'];

const readingOf = (ps: Processes, roles: readonly ProcessRole[]): RuntimeReading | null =>
  ps.find((p) => roles.includes(p.role) && p.runtime)?.runtime ?? null;

/** What a serving process (a worker, or the single process) said of its box at start; null: none said. */
export const serverReading = (ps: Processes): RuntimeReading | null => readingOf(ps, SERVING);

/** Serving processes at once: as the probe counted them (the most in one second), else from the seconds given. */
function servingAtOnce(seconds: readonly ProbeSecond[] | undefined, probe: NonNullable<StoredCell['probe']>): number {
  return (
    probe.servingAtOnce ||
    servingAtOnceOf(seconds ?? []) ||
    probe.processes.filter((p) => SERVING.includes(p.role)).length
  );
}

interface Peak {
  role: ProcessRole;
  rss: number;
  heapTotal: number;
  limit: number;
}

/** Each process's highest readings: as the probe kept them with the cell, else from the seconds given. */
function peaksOf(probe: NonNullable<StoredCell['probe']>, seconds: readonly ProbeSecond[] | undefined): Peak[] {
  if (probe.processes.every((p) => p.peak))
    return probe.processes.map((p) => ({
      role: p.role,
      rss: p.peak!.rssBytes,
      heapTotal: p.peak!.heapTotalBytes,
      limit: p.peak!.heapLimitBytes,
    }));
  const byPid = new Map<number, Peak>();
  for (const s of seconds ?? []) {
    const p = byPid.get(s.pid) ?? { role: s.role, rss: 0, heapTotal: 0, limit: 0 };
    byPid.set(s.pid, {
      role: s.role,
      rss: Math.max(p.rss, s.rssBytes),
      heapTotal: Math.max(p.heapTotal, s.heapTotalBytes),
      limit: Math.max(p.limit, s.heapLimitBytes),
    });
  }
  return [...byPid.values()];
}

interface CellInput {
  cell: StoredCell;
  seconds: readonly ProbeSecond[] | undefined;
  ecosystem?: { file: string; instances: string } | undefined;
}

type Found = TrapFacts;

function forksByHost({ cell, seconds, ecosystem }: CellInput, server: RuntimeReading): Found | null {
  const c = cell.config;
  const replicas = Math.max(1, c.replicas ?? 1);
  const asked = (c.mode === 'single' ? 1 : c.workers) * replicas;
  const seen = servingAtOnce(seconds, cell.probe!);
  if (seen <= asked && !ecosystem) return null;
  return {
    kind: 'forks-by-host',
    asked,
    seen,
    hostCpus: server.cpus,
    capCpus: c.cpuMillis / 1000,
    ...(ecosystem ? { ecosystem } : {}),
  };
}

function heapAboveCap({ cell, seconds }: CellInput, server: RuntimeReading): Found | null {
  const c = cell.config;
  const replicas = Math.max(1, c.replicas ?? 1);
  const peaks = peaksOf(cell.probe!, seconds);
  const serving = peaks.filter((p) => SERVING.includes(p.role));
  const processes = Math.max(1, servingAtOnce(seconds, cell.probe!)) / replicas;
  const limit = Math.max(server.heapLimitBytes, ...serving.map((p) => p.limit));
  // What a heap limit does not bound, per container: the cgroup's peak (what the cap is charged with, shared pages
  // once) less the serving heaps at their peak; without a peak, the serving processes' non-heap and the others' RSS.
  const heaps = serving.reduce((a, p) => a + p.heapTotal, 0);
  const other =
    (cell.memMaxBytes
      ? Math.max(0, cell.memMaxBytes - heaps)
      : peaks.reduce((a, p) => a + (SERVING.includes(p.role) ? Math.max(0, p.rss - p.heapTotal) : p.rss), 0)) /
    replicas;
  const needMb = (processes * limit + other) / MB;
  if (needMb <= c.memoryMb) return null;
  // The flag is fit on the rounded figures the answer states, so a reader can redo the sum.
  const otherMb = Math.round(other / MB);
  const fit = heapFitMb(c.memoryMb, { otherMb, processes });
  return {
    kind: 'heap-above-cap',
    processes,
    heapLimitMb: Math.round(limit / MB),
    otherMb,
    memoryMb: c.memoryMb,
    fitMb: fit,
    node: server.node,
    fitPct: fit !== null && server.heapPercentFlag ? Math.floor((fit / c.memoryMb) * 100) : null,
  };
}

function parallelism({ cell }: CellInput, server: RuntimeReading): Found | null {
  const cap = cell.config.cpuMillis / 1000;
  const p = server.parallelism;
  // More than the cap rounds up to (the host's count), or half a CPU or more below it (rounded down from 1.5 on).
  if (p === null || (p <= Math.ceil(cap) && cap - p < ROUNDED_DOWN_CPUS)) return null;
  return { kind: 'parallelism', parallelism: p, capCpus: cap, hostCpus: server.cpus, node: server.node };
}

/** Every trap one cell shows; none where its processes reported no reading. */
export function cellTraps(input: CellInput): Found[] {
  const server = input.cell.probe ? readingOf(input.cell.probe.processes, SERVING) : null;
  if (!server) return [];
  return [forksByHost, heapAboveCap, parallelism].flatMap((check) => check(input, server) ?? []);
}

type EcosystemNote = { file: string; instances?: string };

/** The ecosystem file of a run's app that sizes PM2's instances from the host, if any (a built-in's manifest, or a
 * user's app as `apps add` read it). */
function ecosystemOf(run: RunDetail, app: string): { file: string; instances: string } | undefined {
  for (const a of run.apps as { name?: string; ecosystem?: EcosystemNote; source?: { ecosystem?: EcosystemNote } }[]) {
    const e = a?.name === app ? (a.source?.ecosystem ?? a.ecosystem) : undefined;
    if (e?.instances) return { file: e.file, instances: e.instances };
  }
  return undefined;
}

/** A configuration's grid and settling cells that reached their load with a probe that heard a process. */
const probedCells = (run: RunDetail, key: string): StoredCell[] =>
  run.cells.filter(
    (x) => x.config.phase !== 'verify' && x.load && x.probe?.attached && configurationKey(x.config) === key,
  );

/** What each configuration's processes saw (from its first probed cell with a reading), in the answer's order. */
export function runtimeSeen(run: RunDetail, configurations: readonly ConfigurationSummary[]): RuntimeSeen[] {
  return configurations.flatMap((c) => {
    const cell = probedCells(run, c.key).find((x) => readingOf(x.probe!.processes, SERVING));
    if (!cell) return [];
    const ps = cell.probe!.processes;
    return [
      {
        key: c.key,
        server: readingOf(ps, SERVING),
        supervisor: readingOf(ps, SUPERVISING),
        capCpus: c.cpuMillis / 1000,
        memoryMb: c.memoryMb,
      },
    ];
  });
}

/** The traps of every configuration: each kind once, with how many of its probed cells showed it. */
export function trapsOf(
  run: RunDetail,
  configurations: readonly ConfigurationSummary[],
  probe: ReadonlyMap<number, readonly ProbeSecond[]> | undefined,
): TrapFinding[] {
  return configurations.flatMap((c) => {
    const cells = probedCells(run, c.key);
    const ecosystem = ecosystemOf(run, c.app);
    const found = new Map<TrapFinding['kind'], { f: Found; cells: number }>();
    for (const cell of cells)
      for (const f of cellTraps({ cell, seconds: probe?.get(cell.id), ecosystem })) {
        const had = found.get(f.kind);
        // The worst cell speaks for the configuration: the most processes seen, the largest need.
        if (!had) found.set(f.kind, { f, cells: 1 });
        else found.set(f.kind, { f: worse(had.f, f), cells: had.cells + 1 });
      }
    return [...found.values()].map(({ f, cells: n }) => ({ ...f, key: c.key, cells: n, of: cells.length }));
  });
}

function worse(a: Found, b: Found): Found {
  if (a.kind === 'forks-by-host' && b.kind === 'forks-by-host') return b.seen > a.seen ? b : a;
  if (a.kind === 'heap-above-cap' && b.kind === 'heap-above-cap') return b.otherMb > a.otherMb ? b : a;
  return a;
}

/** Whether the run's cells could be checked at all: some reached their load with the probe on. */
export const anyProbed = (run: RunDetail): boolean => run.cells.some((x) => x.load && x.probe?.attached);
