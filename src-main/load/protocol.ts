import type { CellLoad, MixEntry } from '../model/types.ts';
import type { CsvTables } from '../mix/template.ts';

/** What the engine asks of one load phase (warmup + measurement), whatever the number of threads. */
export interface LoadPlan {
  host: string;
  port: number;
  /** The app's requests: sent in turn, or a weighted mix (mix/). */
  requests: MixEntry[];
  /** The CSV columns the mix's templates read; the seed of its per-connection generators (default mix/random.ts). */
  csv?: CsvTables;
  seed?: number;
  load: CellLoad;
  durationSec: number;
  /** Minimum warmup in seconds (the whole warmup unless `maxWarmupSec` and an `isWarm` callback extend it). */
  warmupSec: number;
  /** Longest warmup: measurement starts by then even if `isWarm` never said so. Default: `warmupSec`. */
  maxWarmupSec?: number;
  /**
   * The host's per-second noise this run (σ as a share of the level, load/second-noise.ts): the flat window may span
   * what that noise spreads (load/warmup.ts warmBound). Absent: a quiet host's.
   */
  warmNoise?: number;
  timeoutSec: number;
  /** Cores for the load threads (taskset syntax, e.g. "1" or "2-3"), away from the target's cores. */
  cpus?: string;
  /** Load threads; default: one per core in `cpus`, else 1. Never more than the connections. */
  threads?: number;
  /** HTTP/2 from Node's client even where h2load could send it (benchmarks and tests compare the two). */
  h2Client?: 'node';
  /**
   * A replicated cell: every replica's address, in replica order (`host`/`port` are the first's). Connection c goes
   * to replica c mod R (spread.ts) and the responses are counted per replica. Absent or one: a single target.
   */
  targets?: { host: string; port: number }[];
}

/** One replica a thread reaches, and which of the plan's connections (their global indexes) go to it. */
export interface ThreadTarget {
  host: string;
  port: number;
  replica: number;
  connections: number[];
}

/** One thread's share of the load (structured-cloned into the thread as its workerData). */
export interface ThreadPlan {
  host: string;
  port: number;
  requests: MixEntry[];
  csv?: CsvTables;
  seed?: number;
  model: CellLoad['model'];
  /** This thread's connections and where they sit among all of the plan's connections. */
  connections: number;
  firstConnection: number;
  totalConnections: number;
  /** The plan's whole rate (constant-rate model): each connection keeps its slot in the shared schedule. */
  rate?: number;
  /** Every connection speaks TLS (HTTPS), a full handshake each unless `tlsResume`. */
  tls?: true;
  /** A re-opened TLS connection (HTTP/1.1 or h2) offers the session its client last got. */
  tlsResume?: true;
  /** HTTP/2 (h2 over TLS, h2c in clear) with up to `streams` requests in flight per connection; absent: HTTP/1.1. */
  protocol?: 'h2' | 'h2c';
  streams?: number;
  /** HTTP/2 sent by this h2load binary (load/h2load-client.ts), where it can send the load; absent: Node's client. */
  h2load?: string;
  timeoutSec: number;
  /** A stop the thread applies itself should the engine never send one (seconds after start). */
  maxSec: number;
  cpus?: string;
  /** A replicated cell: the replicas this thread reaches (one HTTP client set each) and how many there are in all. */
  targets?: ThreadTarget[];
  replicas?: number;
}

/** One thread's counts for one second (index = whole seconds since the common start). */
export interface ThreadSecond {
  index: number;
  /** Responses completed. */
  requests: number;
  /** Responses with their expected status. */
  good: number;
  bytes: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  /** Requests written. */
  sent: number;
  /** Time connections spent with a request in flight (actual send → response, or → given up). */
  busyMs: number;
  /** Connections opened (over TLS: handshakes completed, full ones unless counted in `resumed`). */
  opened: number;
  /** Of those, TLS handshakes that resumed a session (load.tlsResume); absent from an agent of an older build. */
  resumed?: number;
  statusCounts: Record<string, number>;
  /** Unexpected responses by reason ("503 sorry, too many clients already"): load/failure-reason.ts. */
  failureReasons?: Record<string, number>;
  /** CPU time this thread used in the second (ms), where the platform tells (Linux); else 0. With h2load, its too. */
  cpuMs: number;
  /** h2load's share of `cpuMs`, where it sends the thread's load: how near a full core the load side was. */
  clientCpuMs?: number;
  /** The second's latency histogram (µs), hdr-histogram-js compressed base64: merged losslessly. */
  histogram: string;
  /** A replicated cell: responses completed per replica (index = replica). */
  byReplica?: number[];
  /** A mix of several routes: each route's counts and latency this second (index = route, mix/routes.ts). */
  byRoute?: RouteSecond[];
}

/** One route's second: requests written, responses, good ones, and their latency histogram (encoded; '' if none). */
export interface RouteSecond {
  sent: number;
  requests: number;
  good: number;
  histogram: string;
}

export type WorkerMessage =
  /** `h2Client`: an HTTP/2 thread's client (h2load where it can send the load: load/h2load-client.ts). */
  | { type: 'ready'; pinned: string | null; h2Client?: 'h2load' | 'node' }
  | { type: 'second'; second: ThreadSecond }
  /** After a stop: the unfinished second, then nothing more. */
  | { type: 'final'; partial: ThreadSecond }
  | { type: 'error'; message: string };

export type ParentMessage =
  /** Start now: `t0` is the common start as epoch ms (performance.timeOrigin + performance.now()). */
  | { type: 'start'; t0: number }
  | { type: 'stop' }
  /**
   * Leave: drop the connections and end the thread from within. Never terminate() a thread that may be compressing a
   * histogram (hdr-histogram-js deflates with node:zlib): Node aborts the whole process on a zlib stream closed before
   * its init.
   */
  | { type: 'exit' }
  /** A thread spawned ahead (without workerData) gets its share of the load this way. */
  | { type: 'plan'; plan: ThreadPlan };
