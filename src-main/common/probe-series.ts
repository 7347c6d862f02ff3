// The runtime probe's seconds as lines and per-second figures, for whoever draws or exports them
// (the run page and Live, the HTML report, the samples CSV): which processes serve requests, what
// each is called, and each second's figures over them. GC shares follow common/probe-gc.ts.
import type { ProbeSecond, ProcessRole } from '../model/probe.ts';
import type { LaunchMode } from '../model/types.ts';
import { gcShareOf } from './probe-gc.ts';

/** One process's seconds, in time order, with the name a legend gives it. */
export interface ProcessSeries {
  pid: number;
  role: ProcessRole;
  /** "worker 1 (pid 23)", "process (pid 7)". */
  label: string;
  seconds: ProbeSecond[];
}

const SERVES: readonly ProcessRole[] = ['worker', 'single'];

/**
 * The serving processes (workers, a single process) and the others (a cluster primary, PM2's daemon,
 * a child process). An image's command may be its only server, reported as primary or other: there,
 * with neither workers nor a single process, every process but PM2's daemon serves.
 */
export function servingOf<T extends { role: ProcessRole }>(ps: readonly T[], mode?: LaunchMode): T[] {
  const servers = ps.filter((p) => SERVES.includes(p.role));
  return !servers.length && mode === 'image' ? ps.filter((p) => p.role !== 'pm2-daemon') : servers;
}

/** The processes of a cell's seconds, serving ones (servingOf) and the others, each with its legend name. */
export function probeProcesses(
  seconds: readonly ProbeSecond[],
  mode?: LaunchMode,
): { serving: ProcessSeries[]; others: ProcessSeries[] } {
  const byPid = new Map<number, ProbeSecond[]>();
  for (const s of [...seconds].sort((a, b) => a.t - b.t || a.pid - b.pid)) {
    const list = byPid.get(s.pid);
    if (list) list.push(s);
    else byPid.set(s.pid, [s]);
  }
  // In order of first report, so worker 1 is the one that reported first (a replaced worker comes last).
  const all = [...byPid].map(([pid, secs]) => ({ pid, role: secs[0]!.role, seconds: secs }));
  const serves = servingOf(all, mode);
  const others = all.filter((p) => !serves.includes(p));
  let n = 0;
  const numbered = serves.filter((p) => p.role === 'worker').length > 1;
  const name = (p: (typeof all)[number]): string =>
    p.role === 'worker' && numbered ? `worker ${++n}` : ROLE_NAMES[p.role];
  return {
    serving: serves.map((p) => ({ ...p, label: `${name(p)} (pid ${p.pid})` })),
    others: others.map((p) => ({ ...p, label: `${ROLE_NAMES[p.role]} (pid ${p.pid})` })),
  };
}

const ROLE_NAMES: Record<ProcessRole, string> = {
  worker: 'worker',
  single: 'process',
  primary: 'cluster primary',
  'pm2-daemon': "PM2's daemon",
  other: 'other process',
};

/** What a legend says of the processes left out of per-worker charts, or '' when none was. */
export function othersNote(others: readonly ProcessSeries[]): string {
  if (!others.length) return '';
  const names = others.map((p) => p.label);
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : names[0];
  return `Not drawn: ${list}, which ${others.length > 1 ? 'serve' : 'serves'} no requests.`;
}

/** One process's share of its second in GC pauses, 0–1 (over the time the probe listened); null: it did not listen. */
export const gcShareOfSecond = (s: ProbeSecond): number | null => gcShareOf([s]);

/** Seconds a per-second GC share pools: the probe hears a short window of each second, sized to hold ~one pause. */
export const GC_POOL_SECONDS = 5;

/**
 * One process's GC share at each of its seconds, pooled over that second and the GC_POOL_SECONDS − 1 before it
 * (Σ pauses ÷ Σ listening time, the one GC rule): a single second's window jumps between 0 and a whole
 * pause. Null where it listened to none of them.
 */
export function gcSharePooled(seconds: readonly ProbeSecond[]): (number | null)[] {
  return seconds.map((_, i) => gcShareOf(seconds.slice(Math.max(0, i - GC_POOL_SECONDS + 1), i + 1)));
}

/** A second's figures over the serving processes that reported in it. */
export interface ProbeSecondFigures {
  t: number;
  processes: number;
  eluMean: number;
  eluMax: number;
  delayP99MaxMs: number;
  /** Σ GC pauses ÷ Σ the time the probe listened, over the processes; null: it listened to none. */
  gcShare: number | null;
  heapUsedMaxBytes: number;
  rssMaxBytes: number;
}

/** Each second's figures over the serving processes, by t (warm-up seconds included, t < 0). */
export function probeBySecond(seconds: readonly ProbeSecond[], mode?: LaunchMode): Map<number, ProbeSecondFigures> {
  const byT = new Map<number, ProbeSecond[]>();
  for (const p of probeProcesses(seconds, mode).serving)
    for (const s of p.seconds) byT.set(s.t, [...(byT.get(s.t) ?? []), s]);
  const max = (xs: number[]): number => xs.reduce((a, b) => Math.max(a, b), 0);
  const out = new Map<number, ProbeSecondFigures>();
  for (const [t, ss] of [...byT].sort((a, b) => a[0] - b[0])) {
    out.set(t, {
      t,
      processes: ss.length,
      eluMean: ss.reduce((a, s) => a + s.elu, 0) / ss.length,
      eluMax: max(ss.map((s) => s.elu)),
      delayP99MaxMs: max(ss.map((s) => s.delayP99Ms)),
      gcShare: gcShareOf(ss),
      heapUsedMaxBytes: max(ss.map((s) => s.heapUsedBytes)),
      rssMaxBytes: max(ss.map((s) => s.rssBytes)),
    });
  }
  return out;
}
