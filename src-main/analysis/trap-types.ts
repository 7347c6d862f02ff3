// What Node.js believed about its container, per configuration, and the traps that belief sets
// (analysis/decide/traps.ts decides them, explain/trap-words.ts says them). Types only.
import type { RuntimeReading } from '../model/runtime.ts';

/** What one configuration's processes saw, from its first probed cell: one reading per role. */
export interface RuntimeSeen {
  key: string;
  /** The serving processes' reading (a worker's, or the single process's); null: none reported one. */
  server: RuntimeReading | null;
  /** The cluster primary's or PM2 daemon's, where there is one and it reported. */
  supervisor: RuntimeReading | null;
  /** The CPU cap in CPUs (millicores ÷ 1000) and the memory cap in MB, for the reader. */
  capCpus: number;
  memoryMb: number;
}

/** One trap, with the numbers it was decided on; `cells` of `of` probed cells of the configuration showed it. */
export type TrapFinding = { key: string; cells: number; of: number } & TrapFacts;

/** What one cell showed of a trap: the numbers it is decided on. */
export type TrapFacts =
  | {
      kind: 'forks-by-host';
      /** Worker processes the matrix asked for, and the most seen serving at once. */
      asked: number;
      seen: number;
      /** os.cpus().length inside the container. */
      hostCpus: number;
      capCpus: number;
      /** The ecosystem file's `instances`, when it counts the host's CPUs ("max", 0, -1). */
      ecosystem?: { file: string; instances: string };
    }
  | {
      kind: 'heap-above-cap';
      /** Serving processes, V8's heap limit in each, what the rest of memory took (MB), and the cap. */
      processes: number;
      heapLimitMb: number;
      otherMb: number;
      memoryMb: number;
      /** The --max-old-space-size per process that fits; null: no heap fits beside the rest. */
      fitMb: number | null;
      node: string;
      /** The same as a share of the cap, where this Node.js takes --max-old-space-size-percentage; else null. */
      fitPct: number | null;
    }
  | { kind: 'parallelism'; parallelism: number; capCpus: number; hostCpus: number; node: string };

export type TrapNoteKind = TrapFinding['kind'] | 'threadpool' | 'versions' | 'not-checked';

/** One trap as the answer says it (explain/trap-words.ts); `key`: the configuration it is about, null: the run. */
export interface TrapNote {
  kind: TrapNoteKind;
  key: string | null;
  /** The app it is about, where it is said once for all its configurations (key null). */
  app?: string;
  /** An ecosystem file's trap: what the summary says of it with the deployed configuration's instances. */
  ecosystem?: { file: string; instances: string; hostCpus: number };
  /** One sentence for the summary. */
  short: string;
  /** The whole of it, for --explain and the report. */
  text: string;
}
