// Which processes a cell's probe heard, against the ones its launch mode starts, in words: a
// process that never reported is said so, never silently missing.
import type { CellProbe, ProbeSecond, ProcessPeak, ProcessRole } from '../model/probe.ts';
import type { RuntimeReading } from '../model/runtime.ts';
import type { LaunchMode } from '../model/types.ts';

/** The most serving processes (workers, or the single process) that reported in any one second; 0 without any. */
export function servingAtOnceOf(seconds: readonly Pick<ProbeSecond, 't' | 'pid' | 'role'>[]): number {
  const byT = new Map<number, Set<number>>();
  for (const s of seconds)
    if (s.role === 'worker' || s.role === 'single') (byT.get(s.t) ?? byT.set(s.t, new Set()).get(s.t)!).add(s.pid);
  return Math.max(0, ...[...byT.values()].map((x) => x.size));
}

/** The processes a launch mode starts by role (an image's are unknown: null). */
export function expectedRoles(mode: LaunchMode, workers: number): Partial<Record<ProcessRole, number>> | null {
  switch (mode) {
    case 'single':
      return { single: 1 };
    case 'cluster':
      return { primary: 1, worker: workers };
    case 'pm2':
      return { 'pm2-daemon': 1, worker: workers };
    case 'image':
      return null;
  }
}

const ROLE_WORDS: Record<ProcessRole, [string, string]> = {
  primary: ['the cluster primary', 'cluster primaries'],
  worker: ['worker', 'workers'],
  single: ['the server process', 'server processes'],
  'pm2-daemon': ["PM2's daemon", 'PM2 daemons'],
  other: ['other process', 'other processes'],
};

function missingWords(role: ProcessRole, heard: number, want: number): string {
  const [one, many] = ROLE_WORDS[role];
  if (want === 1) return one;
  return `${want - heard} of ${want} ${many}`;
}

/**
 * The cell's probe from its placed seconds: every distinct pid heard (its role from its last
 * second), the count expected, and a note naming whatever did not report or turned itself off.
 */
export function summarizeProbe(
  seconds: ProbeSecond[],
  launch: { mode: LaunchMode; workers: number },
  off: ReadonlyMap<number, string> = new Map(),
  runtimes: ReadonlyMap<number, RuntimeReading> = new Map(),
): CellProbe {
  const roles = new Map<number, ProcessRole>();
  const peaks = new Map<number, ProcessPeak>();
  for (const s of seconds) {
    roles.set(s.pid, s.role);
    const p = peaks.get(s.pid) ?? { rssBytes: 0, heapTotalBytes: 0, heapLimitBytes: 0 };
    peaks.set(s.pid, {
      rssBytes: Math.max(p.rssBytes, s.rssBytes),
      heapTotalBytes: Math.max(p.heapTotalBytes, s.heapTotalBytes),
      heapLimitBytes: Math.max(p.heapLimitBytes, s.heapLimitBytes),
    });
  }
  const processes = [...roles].map(([pid, role]) => {
    const runtime = runtimes.get(pid);
    return { pid, role, ...(runtime ? { runtime } : {}), peak: peaks.get(pid)! };
  });
  const servingAtOnce = servingAtOnceOf(seconds);
  const want = expectedRoles(launch.mode, launch.workers);
  const expected = want ? Object.values(want).reduce((a, b) => a + b, 0) : null;
  const notes: string[] = [];
  if (processes.length === 0) {
    notes.push(
      want
        ? `the probe could not attach to any of the ${expected} processes: none reported while the load ran`
        : 'the probe could not attach: no process of the image reported (does it run Node.js?)',
    );
  } else if (want) {
    const missing: string[] = [];
    for (const [role, n] of Object.entries(want) as [ProcessRole, number][]) {
      // A single process may report as anything the app made of itself (a cluster of its own): count it.
      const heard = role === 'single' ? processes.length : processes.filter((p) => p.role === role).length;
      if (heard < n) missing.push(missingWords(role, heard, n));
    }
    if (missing.length) notes.push(`the probe could not attach to ${missing.join(' and ')}: no line came from them`);
  }
  for (const [pid, why] of off) notes.push(`the probe turned itself off in process ${pid}: ${why}`);
  return {
    attached: processes.length,
    expected,
    processes,
    ...(servingAtOnce ? { servingAtOnce } : {}),
    ...(notes.length ? { note: notes.join('; ') } : {}),
    seconds,
  };
}
