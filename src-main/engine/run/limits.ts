// Where cells run decides what a matrix or a search may ask for: the limits are the target's (its
// largest free node), never this machine's when the cells run elsewhere. One rule, used by the run
// lifecycle (after sweeping and checking the target) and by the service's validation (check only).
import type { AppDefinition } from '../../apps/catalog.ts';
import { appNames, imageAppsOf, type AppLibrary } from '../../apps/library.ts';
import type { EngineInfo } from '../../docker/client.ts';
import type { Provider, ProviderCheck, ProviderNode } from '../../providers/provider.ts';
import { isSessionAlive } from '../../session/session.ts';
import { hostLimits } from '../host.ts';
import type { HostLimits } from '../matrix.ts';

/** A target not ready to run cells (unreachable, no node free…): nothing was started. */
export class TargetNotReadyError extends Error {
  readonly code = 'TARGET_NOT_READY';
}

/** The largest node free for a cell in a connection check, or null when none is. */
export const largestFreeNode = (check: Pick<ProviderCheck, 'nodes'>): ProviderNode | null =>
  check.nodes.filter((n) => n.free).sort((a, b) => b.cpus - a.cpus)[0] ?? null;

/** The limits on a node: its cores and memory, the apps as this machine knows them. */
export const limitsOnNode = (local: HostLimits, node: ProviderNode | null): HostLimits =>
  node ? { ...local, cores: node.cpus, memoryMb: Math.floor(node.memoryBytes / 2 ** 20) } : local;

/**
 * Before a run: what a dead session of ours left where the cells run is swept, then the target's
 * connection check must pass, else every problem in words. The same for every provider, this
 * machine's engine included. Returns what was swept and the largest free node.
 */
export async function readyTarget(p: Provider): Promise<{ swept: string[]; node: ProviderNode | null }> {
  // Swept first: a dead session's leftover cell would make a node look busy. A sweep that cannot
  // reach the target is not the answer the user needs: the check says what is wrong, in words.
  const swept = await p.sweep(isSessionAlive).catch(() => [] as string[]);
  const check = await p.check();
  if (!check.ok)
    throw new TargetNotReadyError(
      `The target "${p.name}" is not ready: ${check.problems.join('; ')}. Nothing was started.`,
    );
  return { swept, node: largestFreeNode(check) };
}

/**
 * The limits a matrix or a search is checked against: this machine's engine, or a saved target's
 * largest free node (after readyTarget: swept and checked).
 */
export async function limitsWhereCellsRun(
  engine: EngineInfo,
  lib: AppLibrary,
  provider: Provider | undefined,
): Promise<{ limits: HostLimits; swept: string[] }> {
  const local = hostLimits(engine, appNames(lib), imageAppsOf(lib));
  if (!provider) return { limits: local, swept: [] };
  const { swept, node } = await readyTarget(provider);
  return { limits: limitsOnNode(local, node), swept };
}

/**
 * Bandwidth caps run only where the provider can set them; elsewhere the run is refused before anything starts,
 * naming the caps, the target and why.
 */
export function checkBandwidthCaps(p: Pick<Provider, 'name' | 'bandwidthCapProblem'>, caps: readonly number[]): void {
  if (!caps.length) return;
  const why = p.bandwidthCapProblem
    ? p.bandwidthCapProblem()
    : 'a Swarm service or a Kubernetes pod has no per-container bandwidth cap Rightsize can set (a Docker engine has)';
  if (!why) return;
  throw new TargetNotReadyError(
    `The target "${p.name}" cannot cap a cell's bandwidth (networkMbps ${caps.join(', ')}): ${why}. ` +
      'Nothing was started.',
  );
}

/**
 * HTTPS and HTTP/2 cells run only where the provider's readiness check speaks TLS and HTTP/2; elsewhere refused
 * before anything starts.
 */
export function checkTls(p: Pick<Provider, 'name' | 'servesTls'>, tls: boolean, http2 = false): void {
  if ((!tls && !http2) || p.servesTls) return;
  const what = http2 ? 'HTTP/2 cells yet (protocol "h2" or "h2c")' : 'HTTPS cells yet (tls: true)';
  throw new TargetNotReadyError(
    `The target "${p.name}" cannot run ${what}: a Swarm service's or a pod's readiness check ` +
      'speaks neither TLS nor HTTP/2 here (a Docker engine does). Nothing was started.',
  );
}

/**
 * Apps with dependencies run only where the provider can start them beside the app; elsewhere the
 * run is refused before anything starts, naming the apps and the target.
 */
export function checkDependenciesHosted(
  p: Pick<Provider, 'name' | 'hostsDependencies' | 'dependencyProblems'>,
  apps: readonly AppDefinition[],
): void {
  const needing = apps.filter((a) => a.dependencies?.length);
  const problems = needing.flatMap((a) =>
    (p.dependencyProblems?.(a.dependencies!) ?? []).map((x) => `${a.name}: ${x}`),
  );
  if (problems.length)
    throw new TargetNotReadyError(
      `The target "${p.name}" cannot start the dependencies as declared: ${problems.join('; ')}. Nothing was started.`,
    );
  if (!needing.length || p.hostsDependencies) return;
  const what = needing.map((a) => `${a.name} needs ${a.dependencies!.map((d) => d.name).join(', ')}`).join('; ');
  throw new TargetNotReadyError(
    `The target "${p.name}" cannot start an app's dependencies (a Docker engine, a Swarm and Kubernetes can): ` +
      `${what}. Nothing was started.`,
  );
}
