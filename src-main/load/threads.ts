// How a load plan is shared among load threads: how many, which cores, which connections.
import { parseCpuList } from '../common/cpu-list.ts';
import type { LoadPlan, ThreadPlan } from './protocol.ts';
import { spreadProblem, threadTargets } from './spread.ts';
import { h2loadBinary, h2loadUnfit } from './h2load-client.ts';

/**
 * How many threads: as the plan says (`threads`, set by benchmarks and tests), else as the matrix
 * asked (`load.threads`, CLI --load-threads), else one per load core, else 1; never more than the
 * connections (a thread needs at least one).
 */
export function threadCount(plan: Pick<LoadPlan, 'threads' | 'cpus' | 'load'>): number {
  const asked = plan.threads ?? plan.load.threads;
  if (asked !== undefined && (!Number.isInteger(asked) || asked < 1)) {
    throw new Error(`load threads must be a whole number of at least 1 (got ${asked})`);
  }
  const wanted = asked ?? (plan.cpus ? parseCpuList(plan.cpus).length : 1);
  return Math.max(1, Math.min(wanted, plan.load.connections));
}

/**
 * One plan per thread. Connections are split as evenly as possible; at constant rate every
 * connection keeps its slot in the one shared schedule (connection c of C sends at (c + k·C) / rate),
 * so N threads together send exactly what one would, evenly spread. With a core per thread each
 * thread gets its own core; otherwise all share the listed cores.
 */
export function splitPlan(plan: LoadPlan): ThreadPlan[] {
  const n = threadCount(plan);
  const cores = plan.cpus ? parseCpuList(plan.cpus) : [];
  const total = plan.load.connections;
  const maxSec = Math.max(plan.warmupSec, plan.maxWarmupSec ?? 0) + plan.durationSec + 30;
  // A replicated cell: each thread reaches the replicas its connections go to (connection c → replica c mod R).
  const spread = plan.targets && plan.targets.length >= 2 ? plan.targets : undefined;
  const problem = spread ? spreadProblem(total, spread.length) : undefined;
  if (problem) throw new Error(problem);
  const h2load = h2loadFor(plan);
  const threads: ThreadPlan[] = [];
  let first = 0;
  for (let i = 0; i < n; i++) {
    const connections = Math.floor(total / n) + (i < total % n ? 1 : 0);
    const cpus = cores.length >= n ? String(cores[i]) : plan.cpus;
    threads.push({
      host: plan.host,
      port: plan.port,
      requests: plan.requests,
      ...(plan.csv ? { csv: plan.csv } : {}),
      ...(plan.seed !== undefined ? { seed: plan.seed } : {}),
      model: plan.load.model,
      connections,
      firstConnection: first,
      totalConnections: total,
      ...(plan.load.model === 'rate' ? { rate: plan.load.rate } : {}),
      ...(plan.load.tls ? { tls: true as const } : {}),
      ...(plan.load.tlsResume ? { tlsResume: true as const } : {}),
      ...(plan.load.protocol ? { protocol: plan.load.protocol, streams: plan.load.streams ?? 1 } : {}),
      ...(h2load ? { h2load } : {}),
      timeoutSec: plan.timeoutSec,
      maxSec,
      ...(cpus ? { cpus } : {}),
      ...(spread ? { targets: threadTargets(first, connections, spread), replicas: spread.length } : {}),
    });
    first += connections;
  }
  return threads;
}

/** The h2load that sends an HTTP/2 plan's load where it can (h2load-client.ts), else undefined: Node's client. */
function h2loadFor(plan: LoadPlan): string | undefined {
  if (!plan.load.protocol || plan.h2Client === 'node') return undefined;
  const replicas = plan.targets?.length ?? 1;
  const fit = { model: plan.load.model, requests: plan.requests, replicas, tlsResume: plan.load.tlsResume === true };
  return h2loadUnfit(fit) ? undefined : h2loadBinary();
}
