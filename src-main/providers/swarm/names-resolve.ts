// A Swarm spreads a new service's name to the other nodes by gossip: a healthy dependency's name can
// answer EAI_AGAIN from the app's node for seconds, and a cell measured then counts the app's failed
// queries. So the cell starts once every dependency's name resolves inside each app container.
import type Docker from 'dockerode';
import { execExitCode } from '../docker/dependency-ready.ts';

/** Enough for gossip on a busy host; past it the cell fails, naming what did not resolve. */
export const NAMES_RESOLVE_MS = 30_000;

/** How one lookup ended: found, not yet, or the container cannot ask (no `node` in it). */
type Lookup = 'found' | 'not-yet' | 'cannot-ask';

/** The lookup, asked as the app would (Node's resolver, the container's own /etc/resolv.conf). */
async function lookup(c: Docker.Container, name: string): Promise<Lookup> {
  const script = "require('dns').lookup(process.argv[1],(e)=>process.exit(e?1:0))";
  try {
    const code = await execExitCode(c, ['node', '-e', script, name], 5000);
    // 126/127: the shell's "cannot run" and "not found", as runc reports an exec of a missing binary.
    return code === 0 ? 'found' : code === 126 || code === 127 ? 'cannot-ask' : 'not-yet';
  } catch (e) {
    const message = (e as Error).message ?? '';
    return /executable file not found|no such file/i.test(message) ? 'cannot-ask' : 'not-yet';
  }
}

/**
 * Resolves once every name resolves inside every container, or at once where a container cannot ask
 * (an image without `node` on its PATH: its app then meets the names as they come). Rejects after
 * `deadlineMs` naming the names still unknown, or on a cancel.
 */
export async function untilNamesResolve(
  containers: readonly Docker.Container[],
  names: readonly string[],
  signal?: AbortSignal,
  o: { deadlineMs?: number; pollMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + (o.deadlineMs ?? NAMES_RESOLVE_MS);
  for (const c of containers) {
    let left = [...names];
    while (left.length) {
      if (signal?.aborted) throw new Error('cancelled');
      const seen = await Promise.all(left.map((n) => lookup(c, n)));
      if (seen.includes('cannot-ask')) break;
      left = left.filter((_, i) => seen[i] !== 'found');
      if (!left.length) break;
      if (Date.now() > deadline)
        throw new Error(
          `the app's node could not resolve ${left.map((n) => `"${n}"`).join(', ')} after ` +
            `${Math.round((o.deadlineMs ?? NAMES_RESOLVE_MS) / 1000)} s (the Swarm's DNS on that node)`,
        );
      await new Promise((r) => setTimeout(r, o.pollMs ?? 250));
    }
  }
}
