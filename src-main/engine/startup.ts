import { checkEngine, DockerUnavailableError, type EngineInfo } from '../docker/client.ts';
import { sweepOrphans } from '../docker/sweep.ts';
import { isSessionAlive } from '../session/session.ts';
import type { Store } from '../store/index.ts';

export interface Startup {
  /** Runs whose process died mid-run, now marked interrupted (their finished cells kept). */
  interruptedRuns: number[];
  /** Containers of dead sessions, now removed. */
  sweptContainers: string[];
  /** Set when Docker could not be reached: the store still works, runs cannot start. */
  dockerError?: string;
  /** What Docker reported when it could be reached (so a host need not ask again). */
  engine?: EngineInfo;
}

/**
 * What every engine host (CLI, serve, Electron) does first: recover from a crash of an earlier
 * process, so a killed run never stays "running" and its containers never stay behind.
 */
export async function recoverAtStartup(store: Store): Promise<Startup> {
  const interruptedRuns = store.markInterrupted(isSessionAlive);
  try {
    const engine = await checkEngine();
    return { interruptedRuns, sweptContainers: await sweepOrphans(), engine };
  } catch (e) {
    if (e instanceof DockerUnavailableError) return { interruptedRuns, sweptContainers: [], dockerError: e.message };
    throw e;
  }
}
