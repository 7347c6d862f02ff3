// The matrix's topology and runtime dimensions: replicas, a total budget split over them, Node.js
// versions, Node.js flag sets and environment settings (a pool size, UV_THREADPOOL_SIZE) — their
// shapes, their checks and what they expand into. The rest of the matrix (apps, caps, workers,
// load…) is engine/matrix.ts.
import { ENV_NAME } from '../common/env-name.ts';
import { z } from 'zod';
import { coresNeeded, replicaCoresProblem } from '../docker/replica-placement.ts';
import type { Problem } from '../common/issues.ts';
import { PROTOCOLS, type CellLoad, type Protocol } from '../model/cell-load.ts';

/** Below this a Node.js process cannot even start reliably. */
export const MIN_MEMORY_MB = 32;
/** The most identical containers one cell may run. */
export const MAX_REPLICAS = 16;
/** A budget split never gives a replica less CPU than this: below it a Node.js server barely answers its health. */
export const MIN_REPLICA_CPU_MILLIS = 100;

const nums = z.array(z.number());

/**
 * A total held fixed so topologies compare like for like: each total is split evenly over the
 * replicas (`replicas`, or every count from 1 to `maxReplicas`), so "1 × 2000m", "2 × 1000m" are
 * one budget's cells. Memory is a total too: a replica gets `memoryMb ÷ replicas`.
 */
export const BudgetSchema = z.strictObject({
  cpuMillicores: nums,
  memoryMb: nums,
  maxReplicas: z.number().optional(),
});
export type Budget = z.output<typeof BudgetSchema>;

/** The fields engine/matrix.ts adds to its schema. Formats are checked in `dimensionProblems`, all at once. */
export const DIMENSION_FIELDS = {
  replicas: nums.optional(),
  budget: BudgetSchema.optional(),
  node: z.array(z.string()).optional(),
  nodeFlags: z.array(z.array(z.string())).optional(),
  envMatrix: z.record(z.string(), z.array(z.string())).optional(),
  networkMbps: nums.optional(),
  tls: z.array(z.boolean()).optional(),
  protocol: z.array(z.string()).optional(),
};

/** The widest bandwidth cap a cell may ask (Mbit/s): 100 Gbit/s; the narrowest is 1 Mbit/s. */
export const MAX_NETWORK_MBPS = 100_000;

/** The most values one environment variable may take, and the most settings (their product) a matrix may ask. */
export const MAX_ENV_VALUES = 8;
export const MAX_ENV_SETS = 16;
/** Set by the engine for every cell: a dimension over them would be overwritten, or measure something else. */
const ENGINE_ENV = new Set(['PORT', 'NODE_OPTIONS', 'WEB_CONCURRENCY']);

export const DIMENSION_HINTS: Record<string, string> = {
  replicas: 'a list of container counts per cell, e.g. [1, 2] (default [1]; caps and workers are per replica)',
  budget:
    'an object of totals split evenly over the replicas: {"cpuMillicores": [2000], "memoryMb": [1024]} ' +
    '(optional "maxReplicas": 4)',
  'budget.cpuMillicores': 'a list of total CPU in millicores to split over the replicas, e.g. [2000]',
  'budget.memoryMb': 'a list of total memory in MB to split over the replicas, e.g. [1024]',
  'budget.maxReplicas': 'the most replicas to split a total into, a whole number, e.g. 4',
  node: 'a list of Node.js versions: majors such as "22" or exact versions such as "22.11.0", e.g. ["20", "22"]',
  nodeFlags: 'a list of flag sets, each applied together, e.g. [[], ["--max-semi-space-size=32"]]',
  tls: 'a list of true (HTTPS: TLS on every connection) and false (plain HTTP), each its own cells, e.g. [false, true]',
  protocol:
    'a list of HTTP versions, each its own cells: "http1" (HTTP/1.1, plain or TLS by "tls"), "h2" (HTTP/2 over TLS), ' +
    '"h2c" (HTTP/2 in clear), e.g. ["http1", "h2"]',
  networkMbps:
    "a list of bandwidth caps in Mbit/s on the server's side of the link, each its own cells, e.g. [100, 2000] " +
    '(leave it out for none)',
  envMatrix:
    'an object of variable names to lists of values, each value its own cells, e.g. {"PG_POOL_SIZE": ["5", "20"]}',
};

/** What these dimensions read from a matrix (the parsed fields; any may be absent). */
export interface Dimensions {
  cpuMillicores?: number[];
  memoryMb?: number[];
  replicas?: number[];
  budget?: Budget;
  node?: string[];
  nodeFlags?: string[][];
  envMatrix?: Record<string, string[]>;
  networkMbps?: number[];
  tls?: boolean[];
  protocol?: string[];
  /** The environment of every cell, which a dimension's variable must not also set. */
  env?: Record<string, string>;
}

/** One container layout of a cell: R replicas, each with these caps. */
export interface Topology {
  replicas: number;
  cpuMillis: number;
  memoryMb: number;
}

const unique = <T>(xs: readonly T[]): T[] => [...new Set(xs)];

/** "22" or "22.11.0" (a leading "v" is not accepted: the version as `node --version` prints it, without it). */
const NODE_VERSION = /^(0|[1-9]\d{0,2})(\.(0|[1-9]\d{0,3})\.(0|[1-9]\d{0,3}))?$/;

/** Flags that would measure something else: a debugger, a profiler or a heap dump slows every request. */
const MEASURING_BREAKERS = [/^--inspect/, /^--prof$/, /^--prof-/, /^--cpu-prof/, /^--heap-prof/, /^--heapsnapshot/];

/** What is wrong with one flag, or undefined. */
export function flagProblem(flag: string): string | undefined {
  if (/\s/.test(flag)) return `"${flag}" has a space in it: give each flag as its own item, e.g. ["--a", "--b"]`;
  if (!/^--[a-z]/i.test(flag))
    return `"${flag}" is not a Node.js flag: flags start with "--", e.g. "--max-semi-space-size=32"`;
  if (MEASURING_BREAKERS.some((r) => r.test(flag.split('=')[0]!)))
    return `"${flag}" is refused: a debugger, profiler or heap dump would be measured along with the server`;
  return undefined;
}

/**
 * The splits of a budget's total: the replica counts asked for (`replicas`), or every count from 1 to
 * `maxReplicas` (default: the total in whole cores, at least 1) that divides both totals into whole
 * millicores and MB. Explicit counts that do not divide are problems, said by `dimensionProblems`.
 */
export function budgetSplits(budget: Budget, cpuTotal: number, memTotal: number, replicas?: number[]): Topology[] {
  const counts = replicas
    ? unique(replicas)
    : Array.from({ length: budget.maxReplicas ?? Math.max(1, Math.floor(cpuTotal / 1000)) }, (_, i) => i + 1);
  return counts
    .filter((r) => cpuTotal % r === 0 && memTotal % r === 0)
    .map((r) => ({ replicas: r, cpuMillis: cpuTotal / r, memoryMb: memTotal / r }));
}

/**
 * Every (replicas, CPU, memory) a cell of the matrix gets, in the order a run takes them: without a
 * budget the product of replicas × cpuMillicores × memoryMb (per replica); with one, each CPU total ×
 * each memory total split over the replica counts.
 */
export function topologies(m: Dimensions): Topology[] {
  if (m.budget) {
    const b = m.budget;
    return unique(b.cpuMillicores).flatMap((cpu) =>
      unique(b.memoryMb).flatMap((mem) => budgetSplits(b, cpu, mem, m.replicas)),
    );
  }
  return unique(m.replicas ?? [1]).flatMap((replicas) =>
    unique(m.cpuMillicores ?? []).flatMap((cpuMillis) =>
      unique(m.memoryMb ?? []).map((memoryMb) => ({ replicas, cpuMillis, memoryMb })),
    ),
  );
}

/** The Node.js versions of an app's cells: none named (or an image app, which brings its own) = the default. */
export const nodeVersionsOf = (m: Dimensions, image: boolean): (string | undefined)[] =>
  !image && m.node?.length ? unique(m.node) : [undefined];

/** The flag sets of the cells: none named = one set of no flags. */
export const flagSetsOf = (m: Dimensions): string[][] => {
  const sets = m.nodeFlags?.length ? m.nodeFlags : [[]];
  const seen = new Set<string>();
  return sets.filter((s) => !seen.has(JSON.stringify(s)) && Boolean(seen.add(JSON.stringify(s))));
};

/**
 * The environment settings of the cells: every combination of the dimension's values, variables in name order
 * (none named = one empty setting).
 */
export const envSetsOf = (m: Dimensions): Record<string, string>[] =>
  Object.keys(m.envMatrix ?? {})
    .sort()
    .reduce<Record<string, string>[]>(
      (sets, name) => sets.flatMap((s) => unique(m.envMatrix![name]!).map((v) => ({ ...s, [name]: v }))),
      [{}],
    );

/** Whether the cells speak TLS, each its own (none named = plain HTTP). */
export const tlsOf = (m: Dimensions): boolean[] => (m.tls?.length ? unique(m.tls) : [false]);

/** The HTTP versions of the cells, each its own (none named = HTTP/1.1). */
export const protocolsOf = (m: Dimensions): Protocol[] =>
  m.protocol?.length ? (unique(m.protocol) as Protocol[]) : ['http1'];

/**
 * The links of the cells, past the bandwidth cap: HTTP/1.1 plain or over TLS (the `tls` dimension), HTTP/2 over TLS
 * (h2: TLS is part of it) and HTTP/2 in clear (h2c). `streams`: HTTP/2's requests in flight on each connection.
 */
export const linksOf = (m: Dimensions, streams = 1): Pick<CellLoad, 'tls' | 'protocol' | 'streams'>[] =>
  protocolsOf(m).flatMap((p): Pick<CellLoad, 'tls' | 'protocol' | 'streams'>[] => {
    const many = streams > 1 ? { streams } : {};
    if (p === 'h2') return [{ tls: true, protocol: 'h2', ...many }];
    if (p === 'h2c') return [{ protocol: 'h2c', ...many }];
    return tlsOf(m).map((tls) => (tls ? { tls: true } : {}));
  });

/** Some cell speaks TLS (HTTPS, or HTTP/2's h2): the run makes a certificate, and its target must serve it. */
export const anyTls = (m: Dimensions): boolean => Boolean(m.tls?.includes(true) || m.protocol?.includes('h2'));

/** Some cell speaks HTTP/2 (h2 or h2c). */
export const anyHttp2 = (m: Dimensions): boolean => Boolean(m.protocol?.some((p) => p !== 'http1'));

/** The bandwidth caps of the cells, each its own (none named = one uncapped link). */
export const networkCapsOf = (m: Dimensions): (number | undefined)[] =>
  m.networkMbps?.length ? unique(m.networkMbps) : [undefined];

/** The cell's own fields for these dimensions: present only where they differ from the old default. */
export const cellDimensions = (
  t: Topology,
  node: string | undefined,
  flags: string[],
  envSet: Record<string, string> = {},
): { replicas?: number; node?: string; nodeFlags?: string[]; envSet?: Record<string, string> } => ({
  ...(t.replicas >= 2 ? { replicas: t.replicas } : {}),
  ...(node !== undefined ? { node } : {}),
  ...(flags.length ? { nodeFlags: flags } : {}),
  ...(Object.keys(envSet).length ? { envSet } : {}),
});

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The host's limits these checks need (engine/matrix.ts HostLimits). */
export interface DimensionLimits {
  cores: number;
  memoryMb: number;
}

/**
 * Every problem of these dimensions, and of the caps where a budget replaces them. `present` says
 * which top-level fields the input had, so a budget next to cpuMillicores is named even when one of
 * them did not parse.
 */
export function dimensionProblems(m: Dimensions, host: DimensionLimits, present: (key: string) => boolean): Problem[] {
  const problems: Problem[] = [];
  const bad = (path: string, message: string): void => void problems.push({ path, message });

  if (m.replicas?.length === 0) bad('replicas', 'needs at least one value');
  for (const r of m.replicas ?? [])
    if (!Number.isInteger(r) || r < 1 || r > MAX_REPLICAS)
      bad('replicas', `${r} is not a replica count (a whole number from 1 to ${MAX_REPLICAS})`);
  const counts = (m.replicas ?? [1]).filter((r) => Number.isInteger(r) && r >= 1 && r <= MAX_REPLICAS);

  if (present('budget')) {
    for (const k of ['cpuMillicores', 'memoryMb'] as const)
      if (present(k))
        bad(
          k,
          `give either "${k}" or "budget", not both: with a budget each replica gets ${k} = budget.${k} ÷ replicas`,
        );
  } else {
    if (!present('cpuMillicores'))
      bad('cpuMillicores', 'is missing: give a list of CPU caps in millicores (1000 = one core), e.g. [500, 1000].');
    if (!present('memoryMb')) bad('memoryMb', 'is missing: give a list of memory caps in MB, e.g. [256, 512].');
  }

  if (m.budget) problems.push(...budgetProblems(m.budget, m.replicas ? counts : undefined, host));
  else if (m.replicas)
    // Per-replica caps: R replicas take R times each cap from the host.
    for (const r of counts.filter((x) => x >= 2)) {
      const cpu = Math.max(0, ...(m.cpuMillicores ?? []).filter((c) => Number.isInteger(c) && c > 0));
      const mem = Math.max(0, ...(m.memoryMb ?? []).filter((x) => Number.isInteger(x) && x >= MIN_MEMORY_MB));
      const tooMany = replicaCoresProblem({ cpuMillis: cpu, replicas: r }, host.cores);
      if (tooMany) bad('replicas', tooMany);
      if (r * mem > host.memoryMb)
        bad(
          'replicas',
          `${r} replicas × ${mem} MB is ${r * mem} MB in total, more than this host's ${host.memoryMb} MB`,
        );
    }

  if (m.node?.length === 0) bad('node', 'needs at least one value (leave "node" out for the default Node.js)');
  for (const v of m.node ?? [])
    if (!NODE_VERSION.test(v))
      bad(
        'node',
        `"${v}" is not a Node.js version; give a major such as "22" or an exact version such as "22.11.0"` +
          (/^v\d/.test(v) ? ` (without the "v": "${v.slice(1)}")` : ''),
      );
  if (m.node && unique(m.node).length !== m.node.length) bad('node', 'each version only once');

  if (m.nodeFlags?.length === 0) bad('nodeFlags', 'needs at least one flag set ([] is the set of no flags)');
  m.nodeFlags?.forEach((set, i) => {
    for (const f of set) {
      const wrong = flagProblem(f);
      if (wrong) bad(`nodeFlags.${i}`, wrong);
    }
  });
  if (m.nodeFlags && unique(m.nodeFlags.map((s) => JSON.stringify(s))).length !== m.nodeFlags.length)
    bad('nodeFlags', 'each flag set only once');
  problems.push(...envProblems(m));
  if (m.networkMbps?.length === 0) bad('networkMbps', 'needs at least one value (leave it out for no cap)');
  for (const n of m.networkMbps ?? [])
    if (!Number.isInteger(n) || n < 1 || n > MAX_NETWORK_MBPS)
      bad('networkMbps', `${n} is not a bandwidth cap: a whole number of Mbit/s from 1 to ${MAX_NETWORK_MBPS}`);
  if (m.networkMbps && unique(m.networkMbps).length !== m.networkMbps.length) bad('networkMbps', 'each cap only once');
  if (m.tls?.length === 0) bad('tls', 'needs at least one value (leave it out for plain HTTP)');
  if (m.tls && unique(m.tls).length !== m.tls.length) bad('tls', 'each value only once');
  if (m.protocol?.length === 0) bad('protocol', 'needs at least one value (leave it out for HTTP/1.1)');
  for (const p of m.protocol ?? [])
    if (!(PROTOCOLS as readonly string[]).includes(p))
      bad('protocol', `"${p}" is not an HTTP version Rightsize speaks: "http1", "h2" or "h2c"`);
  if (m.protocol && unique(m.protocol).length !== m.protocol.length) bad('protocol', 'each value only once');
  if (m.tls && m.protocol?.length && !m.protocol.includes('http1'))
    bad(
      'tls',
      'applies to HTTP/1.1 cells only ("h2" is always over TLS, "h2c" never): add "http1" to protocol or leave it out',
    );
  return problems;
}

/** The environment dimension's names and values, and how many settings they make. */
function envProblems(m: Dimensions): Problem[] {
  const problems: Problem[] = [];
  const entries = Object.entries(m.envMatrix ?? {});
  if (m.envMatrix && entries.length === 0) problems.push({ path: 'envMatrix', message: 'names no variable' });
  for (const [name, values] of entries) {
    const at = `envMatrix.${name}`;
    if (!ENV_NAME.test(name))
      problems.push({ path: at, message: `${name} is not a variable name: letters, digits and _, not first a digit` });
    else if (ENGINE_ENV.has(name))
      problems.push({ path: at, message: `${name} is set by Rightsize for every cell: it cannot be a dimension` });
    else if (m.env?.[name] !== undefined)
      problems.push({ path: at, message: `${name} is also in "env": give it in one place` });
    if (values.length === 0 || values.length > MAX_ENV_VALUES)
      problems.push({ path: at, message: `give 1 to ${MAX_ENV_VALUES} values (got ${values.length})` });
    else if (unique(values).length !== values.length) problems.push({ path: at, message: 'each value only once' });
  }
  const sets = entries.reduce((n, [, v]) => n * Math.max(1, unique(v).length), 1);
  if (sets > MAX_ENV_SETS)
    problems.push({ path: 'envMatrix', message: `${sets} settings (every combination): at most ${MAX_ENV_SETS}` });
  return problems;
}

/** A budget's totals and every split of them, against the host and the per-replica minimums. */
function budgetProblems(b: Budget, explicit: number[] | undefined, host: DimensionLimits): Problem[] {
  const problems: Problem[] = [];
  const bad = (path: string, message: string): void => void problems.push({ path, message });
  const maxMillis = host.cores * 1000;
  if (b.cpuMillicores.length === 0) bad('budget.cpuMillicores', 'needs at least one value');
  if (b.memoryMb.length === 0) bad('budget.memoryMb', 'needs at least one value');
  const cpus = b.cpuMillicores.filter((c) => {
    if (!Number.isInteger(c) || c <= 0)
      bad('budget.cpuMillicores', `${c} is not a positive whole number of millicores`);
    else if (c > maxMillis)
      bad('budget.cpuMillicores', `${c}m is more than this host's ${plural(host.cores, 'core')} (${maxMillis}m)`);
    else return true;
    return false;
  });
  const mems = b.memoryMb.filter((mb) => {
    if (!Number.isInteger(mb) || mb < MIN_MEMORY_MB)
      bad('budget.memoryMb', `${mb} MB is below the minimum of ${MIN_MEMORY_MB} MB`);
    else if (mb > host.memoryMb) bad('budget.memoryMb', `${mb} MB is more than this host's ${host.memoryMb} MB`);
    else return true;
    return false;
  });
  const max = b.maxReplicas;
  if (max !== undefined && explicit)
    bad('budget.maxReplicas', 'give either "replicas" (the splits) or "budget.maxReplicas", not both');
  else if (max !== undefined && (!Number.isInteger(max) || max < 1 || max > MAX_REPLICAS))
    bad('budget.maxReplicas', `${max} is not a replica count (a whole number from 1 to ${MAX_REPLICAS})`);
  if (problems.length) return problems;
  const where = explicit ? 'replicas' : b.maxReplicas !== undefined ? 'budget.maxReplicas' : 'budget';
  for (const cpu of cpus)
    for (const mem of mems) {
      const upTo = max ?? Math.max(1, Math.floor(cpu / 1000));
      const counts = explicit ?? Array.from({ length: upTo }, (_, i) => i + 1);
      const whole = (r: number): boolean => cpu % r === 0 && mem % r === 0;
      for (const r of counts) {
        const split = `${cpu}m and ${mem} MB over ${plural(r, 'replica')}`;
        // A count from a range that does not divide is skipped (documented); one asked for by name is a problem.
        if (!whole(r)) {
          if (explicit)
            bad(where, `${split} is not whole millicores and MB each (${fmt(cpu / r)}m, ${fmt(mem / r)} MB)`);
        } else if (cpu / r < MIN_REPLICA_CPU_MILLIS)
          bad(where, `${split} is ${cpu / r}m each, below the ${MIN_REPLICA_CPU_MILLIS}m a replica needs at least`);
        else if (mem / r < MIN_MEMORY_MB)
          bad(where, `${split} is ${mem / r} MB each, below the minimum of ${MIN_MEMORY_MB} MB`);
      }
      if (!explicit && upTo >= 2 && !counts.some((r) => r >= 2 && whole(r)))
        bad(
          where,
          `${cpu}m and ${mem} MB split into whole millicores and MB over no count from 2 to ${upTo} replicas: ` +
            'give totals that divide evenly, e.g. 2000m and 1024 MB',
        );
    }
  return problems;
}

const fmt = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(2));

/**
 * Where this machine cannot give the largest cell's replicas cores of their own plus one for the load
 * (docker/replica-placement.ts, the local provider's rule): the cores it would need apart, and with
 * the replicas together on the cores of their total cap. Its cells then share cores, as placement
 * says when they run; this says it before Start.
 */
export function coresShortfall(
  m: Dimensions,
  hostCores: number,
): { apart: number; together: number; have: number } | null {
  const needs = topologies(m).map((t) => coresNeeded(t));
  const apart = Math.max(0, ...needs.map((n) => n.apart));
  const together = Math.max(0, ...needs.map((n) => n.together));
  return apart > hostCores ? { apart, together, have: hostCores } : null;
}
