// A replicated cell's load spread over its replicas per connection, evenly, as a Kubernetes Service
// spreads it through kube-proxy: connection c of the plan's C goes to replica c mod R for its whole
// life. Each load thread opens its share of the connections (threads.ts) and runs one HTTP client set
// per replica it reaches, so the responses each replica served are counted, not assumed.
import type { ThreadTarget } from './protocol.ts';

export interface ReplicaAddress {
  host: string;
  port: number;
}

/** Which replica connection `c` (0-based among all of the plan's) goes to. */
export const replicaOfConnection = (c: number, replicas: number): number => c % replicas;

/** How many of `total` connections each of `replicas` gets: equal, the first ones one more when it does not divide. */
export function connectionsPerReplica(total: number, replicas: number): number[] {
  return Array.from({ length: replicas }, (_, r) => Math.floor(total / replicas) + (r < total % replicas ? 1 : 0));
}

/** Why a load cannot be spread over the replicas (fewer connections than replicas), in the matrix's words. */
export function spreadProblem(connections: number, replicas: number): string | undefined {
  if (replicas < 2 || connections >= replicas) return undefined;
  return (
    `${connections} connection(s) cannot reach ${replicas} replicas: each replica needs at least one ` +
    `(the load spreads per connection, as a Kubernetes Service does); use at least ${replicas} connections`
  );
}

/** A thread's connections `first` to `first + count - 1`, grouped by the replica each goes to (none: left out). */
export function threadTargets(first: number, count: number, addresses: readonly ReplicaAddress[]): ThreadTarget[] {
  const byReplica = addresses.map((a, replica) => ({
    host: a.host,
    port: a.port,
    replica,
    connections: [] as number[],
  }));
  for (let c = first; c < first + count; c++) byReplica[replicaOfConnection(c, addresses.length)]!.connections.push(c);
  return byReplica.filter((t) => t.connections.length > 0);
}

/** Each replica's share of the responses (0..1), from the counts per replica; all 0 when none were counted. */
export function shares(requests: readonly number[]): number[] {
  const total = requests.reduce((a, b) => a + b, 0);
  return requests.map((n) => (total > 0 ? n / total : 0));
}
