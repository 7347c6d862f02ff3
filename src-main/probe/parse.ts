// The probe's lines as the engine reads them from a target's log: `rightsize:probe {json}` per
// process and second (resources/base-image/launchers/probe.js), `rightsize:probe-off pid=N why` once
// where it turned itself off. Anything malformed is skipped: a log line is never trusted to be whole.
import type { GcCounts, ProbeReport, ProcessRole } from '../model/probe.ts';
import type { RuntimeReading } from '../model/runtime.ts';

const PREFIX = 'rightsize:probe ';
const RUNTIME = 'rightsize:probe-runtime ';
const OFF = /rightsize:probe-off pid=(\d+) ?(.*)$/;
const ROLES: readonly ProcessRole[] = ['primary', 'worker', 'single', 'pm2-daemon', 'other'];

/** Whether a log line is the probe's (left out of the log tails shown to people). */
export const isProbeLine = (line: string): boolean => line.includes('rightsize:probe');

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const numOrNull = (v: unknown): number | null => num(v) ?? null;

function gcCounts(v: unknown): GcCounts {
  const o = (v ?? {}) as Record<string, unknown>;
  return {
    scavenge: num(o['scavenge']) ?? 0,
    markSweepCompact: num(o['markSweepCompact']) ?? 0,
    incremental: num(o['incremental']) ?? 0,
    weakCallbacks: num(o['weakCallbacks']) ?? 0,
  };
}

/** The JSON object after `prefix` in a line, or undefined when there is none or it is cut short. */
function objectAfter(line: string, prefix: string): Record<string, unknown> | undefined {
  const i = line.indexOf(prefix);
  if (i < 0) return undefined;
  try {
    const o = JSON.parse(line.slice(i + prefix.length)) as unknown;
    return typeof o === 'object' && o !== null ? (o as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** One report from a log line, or undefined when the line is not a whole probe record. */
export function parseProbeLine(line: string): ProbeReport | undefined {
  const o = objectAfter(line, PREFIX);
  if (!o) return undefined;
  const at = num(o['at']);
  const pid = num(o['pid']);
  const elu = num(o['elu']);
  if (at === undefined || pid === undefined || elu === undefined) return undefined;
  const role = ROLES.includes(o['role'] as ProcessRole) ? (o['role'] as ProcessRole) : 'other';
  const ms = num(o['ms']);
  const gcWindowMs = num(o['gcWindowMs']);
  return {
    at,
    pid,
    ppid: num(o['ppid']) ?? 0,
    role,
    elu,
    delayP50Ms: num(o['delayP50Ms']) ?? 0,
    delayP99Ms: num(o['delayP99Ms']) ?? 0,
    delayMaxMs: num(o['delayMaxMs']) ?? 0,
    gcMs: num(o['gcMs']) ?? 0,
    gcCounts: gcCounts(o['gcCounts']),
    gcMaxPauseMs: num(o['gcMaxPauseMs']) ?? 0,
    heapUsedBytes: num(o['heapUsedBytes']) ?? 0,
    heapTotalBytes: num(o['heapTotalBytes']) ?? 0,
    heapLimitBytes: num(o['heapLimitBytes']) ?? 0,
    rssBytes: num(o['rssBytes']) ?? 0,
    externalBytes: num(o['externalBytes']) ?? 0,
    arrayBuffersBytes: num(o['arrayBuffersBytes']) ?? 0,
    activeResources: numOrNull(o['activeResources']),
    voluntaryCtxSwitches: numOrNull(o['voluntaryCtxSwitches']),
    involuntaryCtxSwitches: numOrNull(o['involuntaryCtxSwitches']),
    ...(ms !== undefined ? { ms } : {}),
    ...(gcWindowMs !== undefined ? { gcWindowMs } : {}),
  };
}

/** A process's reading of its box at start, with its pid, or undefined when the line is not a whole one. */
export function parseRuntimeLine(line: string): { pid: number; runtime: RuntimeReading } | undefined {
  const o = objectAfter(line, RUNTIME);
  if (!o) return undefined;
  const pid = num(o['pid']);
  const cpus = num(o['cpus']);
  const heapLimitBytes = num(o['heapLimitBytes']);
  const threadpool = num(o['threadpool']);
  if (pid === undefined || cpus === undefined || heapLimitBytes === undefined || threadpool === undefined) return;
  if (typeof o['node'] !== 'string') return undefined;
  const cgroup = o['cgroup'] === 1 || o['cgroup'] === 2 ? o['cgroup'] : null;
  return {
    pid,
    runtime: {
      node: o['node'],
      cpus,
      parallelism: numOrNull(o['parallelism']),
      constrainedMemory: numOrNull(o['constrainedMemory']),
      heapLimitBytes,
      threadpool,
      cgroup,
      heapPercentFlag: o['heapPercentFlag'] === true,
    },
  };
}

/** What a log says: every report, each process's reading at start (pid →), where the probe turned itself off. */
export interface ProbeLog {
  reports: ProbeReport[];
  runtimes: Map<number, RuntimeReading>;
  off: Map<number, string>;
}

export function parseProbeLog(log: string): ProbeLog {
  const reports: ProbeReport[] = [];
  const runtimes = new Map<number, RuntimeReading>();
  const off = new Map<number, string>();
  for (const line of log.split('\n')) {
    if (!isProbeLine(line)) continue;
    const r = parseProbeLine(line);
    if (r) {
      reports.push(r);
      continue;
    }
    const seen = parseRuntimeLine(line);
    if (seen) {
      runtimes.set(seen.pid, seen.runtime);
      continue;
    }
    const m = OFF.exec(line);
    if (m) off.set(Number(m[1]), m[2]!.trim());
  }
  return { reports, runtimes, off };
}
