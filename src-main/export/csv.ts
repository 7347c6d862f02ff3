import { reasonsText } from '../common/failure-reason.ts';
import type { RunDetail, StoredCell } from '../model/stored.ts';
import type { Flag, Sample } from '../model/types.ts';
import type { ProbeSecond } from '../model/probe.ts';
import { probeBySecond, type ProbeSecondFigures } from '../common/probe-series.ts';
import { gcWindowOf } from '../common/probe-gc.ts';
import { costColumns, COST_HEADER } from './cost-csv.ts';
import { toCsv, type Cell } from './csv-text.ts';

export { toCsv };

/** One row per cell, units in the column names. */
const CELL_COLUMNS: [string, (c: StoredCell) => Cell][] = [
  ['cell_index', (c) => c.config.index],
  ['repetition', (c) => c.config.repetition],
  // Why it ran: the grid, a settling repetition of a contender, or a verification (never a repetition).
  ['phase', (c) => c.config.phase ?? 'matrix'],
  ['app', (c) => c.config.app],
  ['request_set', (c) => c.config.requests?.name],
  ['mode', (c) => c.config.mode],
  ['workers', (c) => c.config.workers],
  ['cpu_millicores', (c) => c.config.cpuMillis],
  ['memory_mb', (c) => c.config.memoryMb],
  // The exact Node.js version the cell ran (empty: not recorded — an image app, or a run stored before it was).
  ['node_version', (c) => c.nodeVersion],
  ['load_model', (c) => c.config.load.model],
  ['connections', (c) => c.config.load.connections],
  ['target_rate_rps', (c) => (c.config.load.model === 'rate' ? c.config.load.rate : null)],
  // The cell's bandwidth cap on what the server sent (empty: none).
  ['network_mbps', (c) => c.config.load.networkMbps],
  // 1: the cell's connections spoke TLS (HTTPS); empty: plain HTTP.
  ['tls', (c) => (c.config.load.tls ? 1 : null)],
  // 1: a re-opened TLS connection resumed its last session (load.tlsResume); empty: a full handshake each.
  ['tls_resume', (c) => (c.config.load.tlsResume ? 1 : null)],
  // The HTTP version the load spoke: http1, h2 (over TLS) or h2c (in clear); HTTP/2's requests in flight on each
  // connection.
  ['protocol', (c) => c.config.load.protocol ?? 'http1'],
  ['streams', (c) => (c.config.load.protocol ? (c.config.load.streams ?? 1) : null)],
  ['duration_s', (c) => c.config.durationSec],
  ['warmup_s', (c) => c.config.warmupSec],
  // Empty for cells stored before the warmup adapted to the app: they used warmup_s.
  ['warmup_used_s', (c) => c.load?.warmupUsedSec],
  // The host's per-second noise the warm-up's flatness was judged by (load/second-noise.ts); empty: a quiet host's.
  ['warmup_noise_pct', (c) => (c.load?.warmupNoise !== undefined ? Math.round(c.load.warmupNoise * 1000) / 10 : null)],
  // A cell under one CPU that warmed up at one (load/warmup.ts): that cap and for how many seconds; empty: its own.
  ['warmup_raised_cpu_m', (c) => c.load?.warmupRaise?.cpuMillis],
  ['warmup_raised_s', (c) => c.load?.warmupRaise?.untilSec],
  ['status', (c) => c.status],
  ['failure', (c) => c.failure?.split('\n')[0]],
  ['rps_mean', (c) => c.rpsMean],
  // The answer's throughput: responses with their expected status per second (empty for cells stored before it was
  // kept).
  ['goodput_mean', (c) => c.load?.goodputMean],
  ['rps_stddev', (c) => c.rpsStddev],
  ['bytes_per_s', (c) => c.bytesPerSec],
  ['latency_p50_us', (c) => c.p50Us],
  ['latency_p75_us', (c) => c.p75Us],
  ['latency_p90_us', (c) => c.p90Us],
  ['latency_p97_5_us', (c) => c.p97_5Us],
  ['latency_p99_us', (c) => c.p99Us],
  ['latency_p99_9_us', (c) => c.p99_9Us],
  ['latency_max_us', (c) => c.maxUs],
  ['latency_mean_us', (c) => c.meanUs],
  ['latency_stddev_us', (c) => c.stddevUs],
  ['latency_from', (c) => c.load?.latencyFrom],
  ['requests', (c) => c.requests],
  ['errors', (c) => c.errors],
  ['timeouts', (c) => c.timeouts],
  ['non2xx', (c) => c.non2xx],
  ['cpu_pct_of_cap_mean', (c) => c.cpuPctMean],
  ['cpu_pct_of_cap_max', (c) => c.cpuPctMax],
  ['mem_max_bytes', (c) => c.memMaxBytes],
  ['mem_limit_bytes', (c) => c.memLimitBytes],
  ['throttled_ms', (c) => c.throttledMs],
  ['oom_killed', (c) => c.exit?.oomKilled],
  ['restarts', (c) => c.exit?.restarts],
  ['client_bound', (c) => c.clientBound],
  // What set the cell's pace (common/bottleneck.ts): server, client or host; the last two make it a lower bound.
  ['bottleneck', (c) => c.bottleneck],
  ['client_elu', (c) => c.load?.clientElu],
  // Load threads that generated the load (empty for cells stored before threads were recorded: one),
  // and how many the matrix asked for (empty: chosen from the cores the target left free).
  ['load_threads', (c) => c.load?.threads],
  ['load_threads_set', (c) => c.config.load.threads],
  ['host_cores', (c) => c.stats?.host?.cores],
  ['host_other_pct', (c) => c.stats?.host?.otherPct],
  ['flags', (c) => c.flags.map((f) => f.kind).join(' ')],
  ['unstable_reason', (c) => reasonOf(c, 'unstable')],
  ['host_busy_reason', (c) => reasonOf(c, 'host-busy')],
  ['dependency_bound_reason', (c) => reasonOf(c, 'dependency-bound')],
  ['network_bound_reason', (c) => reasonOf(c, 'network-bound')],
  ['dependencies', (c) => dependenciesText(c)],
  // The server's reasons for failed responses: `503 "sorry, too many clients already" (1,234)`.
  ['failure_reasons', (c) => reasonsText(c.load?.failureReasons ?? {}).slice(2) || undefined],
];

/** Each dependency's CPU (share of its own cap) and highest memory over the measured seconds: "db 97 % 182 MB". */
function dependenciesText(c: StoredCell): string | undefined {
  const mb = (b = 0): number => Math.round(b / 2 ** 20);
  const parts = c.dependencies?.map(
    (d) => `${d.name} ${Math.round(d.stats?.cpuPctMean ?? 0)} % ${mb(d.stats?.memMaxBytes)} MB`,
  );
  return parts?.length ? parts.join('; ') : undefined;
}

const reasonOf = (c: StoredCell, kind: Flag['kind']): string | undefined =>
  c.flags.find((f) => f.kind === kind)?.reason;

/** One row per cell; the last columns are the run's prices and the cell's cost at them (export/cost-csv.ts). */
export function cellsCsv(run: RunDetail): string {
  const cost = costColumns(run);
  return toCsv(
    ['run_id', ...CELL_COLUMNS.map(([h]) => h), ...COST_HEADER],
    run.cells.map((c) => [run.id, ...CELL_COLUMNS.map(([, f]) => f(c)), ...cost(c)]),
  );
}

const SAMPLE_COLUMNS: [string, Exclude<keyof Sample, 'routes' | 'warmup'>][] = [
  ['t_s', 't'],
  ['rps', 'rps'],
  ['bytes', 'bytes'],
  ['errors', 'errors'],
  ['timeouts', 'timeouts'],
  ['non2xx', 'non2xx'],
  ['latency_p50_us', 'p50Us'],
  ['latency_p90_us', 'p90Us'],
  ['latency_p99_us', 'p99Us'],
  ['latency_max_us', 'maxUs'],
  ['cpu_pct_of_cap', 'cpuPct'],
  ['mem_bytes', 'memBytes'],
  ['throttled_periods', 'throttledPeriods'],
  // Connections the load opened that second: over TLS, a handshake each (empty: none); of them, the TLS handshakes
  // that resumed a session (load.tlsResume; empty: none, all full).
  ['connections_opened', 'opened'],
  ['tls_resumed', 'resumed'],
];

/** The probe's figures of a cell-second, over its serving processes: empty where the probe has none. */
const PROBE_COLUMNS: [string, (f: ProbeSecondFigures) => Cell][] = [
  ['elu_mean', (f) => f.eluMean],
  ['elu_max', (f) => f.eluMax],
  ['delay_p99_max_ms', (f) => f.delayP99MaxMs],
  ['gc_share_mean', (f) => f.gcShare],
  ['heap_used_max_bytes', (f) => f.heapUsedMaxBytes],
  ['rss_max_bytes', (f) => f.rssMaxBytes],
];

/**
 * The per-second series of every cell of a run, one row per cell-second. host_other_pct: the share
 * of the target's and the load's cores that other processes took in that second (empty where not measured).
 * The probe's columns (`probe`: the run's probe seconds by cell id) are over the processes serving
 * requests in that second: ELU 0–1, the highest event-loop delay p99, the GC share 0–1 (pauses over
 * the time the probe listened), the highest heap used and RSS; empty where the cell has no probe.
 */
export function samplesCsv(
  run: RunDetail,
  samples: Map<number, Sample[]>,
  probe: Map<number, ProbeSecond[]> = new Map(),
): string {
  const rows: Cell[][] = [];
  // Each dependency of the run beside the app's own seconds: its CPU (of its own cap) and memory.
  const depNames = [...new Set(run.cells.flatMap((c) => (c.dependencies ?? []).map((d) => d.name)))];
  // Each route of a mix: its responses, good ones and latency per second (columns named by the route).
  const routeNames = [...new Set(run.cells.flatMap((c) => (c.load?.routes ?? []).map((r) => r.route)))];
  for (const c of run.cells) {
    const other = c.stats?.host?.perSecondOtherPct;
    const figures = probeBySecond(probe.get(c.id) ?? [], c.config.mode);
    const deps = depNames.map((n) => c.dependencies?.find((d) => d.name === n)?.measured);
    const routeAt = routeNames.map((n) => c.load?.routes?.findIndex((r) => r.route === n) ?? -1);
    samples.get(c.id)?.forEach((s, i) => {
      const f = figures.get(s.t);
      const routes = routeAt.flatMap((at) => {
        const r = at >= 0 ? s.routes?.[at] : undefined;
        return r ? [r.rps, r.good, r.p50Us, r.p99Us] : [null, null, null, null];
      });
      rows.push([
        run.id,
        c.config.index,
        ...SAMPLE_COLUMNS.map(([, k]) => s[k]),
        other?.[i],
        ...PROBE_COLUMNS.map(([, get]) => (f ? get(f) : null)),
        ...deps.flatMap((m) => [m?.[i]?.cpuPct, m?.[i]?.memBytes]),
        ...routes,
      ]);
    });
  }
  return toCsv(
    [
      'run_id',
      'cell_index',
      ...SAMPLE_COLUMNS.map(([h]) => h),
      'host_other_pct',
      ...PROBE_COLUMNS.map(([h]) => h),
      ...depNames.flatMap((n) => [`${n}_cpu_pct_of_cap`, `${n}_mem_bytes`]),
      ...routeNames.flatMap((n) => [`${n} rps`, `${n} good_rps`, `${n} latency_p50_us`, `${n} latency_p99_us`]),
    ],
    rows,
  );
}

const PROBE_SECOND_COLUMNS: [string, (s: ProbeSecond) => Cell][] = [
  ['t_s', (s) => s.t],
  ['warmup', (s) => Boolean(s.warmup)],
  ['pid', (s) => s.pid],
  ['ppid', (s) => s.ppid],
  ['role', (s) => s.role],
  ['elu', (s) => s.elu],
  ['delay_p50_ms', (s) => s.delayP50Ms],
  ['delay_p99_ms', (s) => s.delayP99Ms],
  ['delay_max_ms', (s) => s.delayMaxMs],
  ['gc_ms', (s) => s.gcMs],
  // How long of the second the probe listened for GC: the GC share is gc_ms ÷ gc_window_ms.
  ['gc_window_ms', (s) => gcWindowOf(s)],
  ['gc_scavenge', (s) => s.gcCounts.scavenge],
  ['gc_mark_sweep_compact', (s) => s.gcCounts.markSweepCompact],
  ['gc_incremental', (s) => s.gcCounts.incremental],
  ['gc_weak_callbacks', (s) => s.gcCounts.weakCallbacks],
  ['gc_max_pause_ms', (s) => s.gcMaxPauseMs],
  ['heap_used_bytes', (s) => s.heapUsedBytes],
  ['heap_total_bytes', (s) => s.heapTotalBytes],
  ['heap_limit_bytes', (s) => s.heapLimitBytes],
  ['rss_bytes', (s) => s.rssBytes],
  ['external_bytes', (s) => s.externalBytes],
  ['array_buffers_bytes', (s) => s.arrayBuffersBytes],
  ['active_resources', (s) => s.activeResources],
  ['voluntary_ctx_switches', (s) => s.voluntaryCtxSwitches],
  ['involuntary_ctx_switches', (s) => s.involuntaryCtxSwitches],
  ['second_ms', (s) => s.ms],
];

/** The runtime probe's seconds of every cell of a run, one row per process and second (warm-up included, t < 0). */
export function probeCsv(run: RunDetail, probe: Map<number, ProbeSecond[]>): string {
  const rows: Cell[][] = [];
  for (const c of run.cells)
    for (const s of probe.get(c.id) ?? [])
      rows.push([run.id, c.config.index, ...PROBE_SECOND_COLUMNS.map(([, get]) => get(s))]);
  return toCsv(['run_id', 'cell_index', ...PROBE_SECOND_COLUMNS.map(([h]) => h)], rows);
}
