import { recoverAtStartup, type Startup } from '../engine/startup.ts';
import { ContractError } from '../contract/api.ts';
import { Lab } from '../service/lab.ts';
import { resolveDbPath, Store } from '../store/index.ts';
import { CliError, EXIT } from './exit-codes.ts';

export interface GlobalOptions {
  db?: string;
  dataDir?: string;
  json?: boolean;
}

/** Opens the history database and recovers from an earlier crash (interrupted runs, orphan containers). */
export async function openStore(
  g: GlobalOptions,
  say: (line: string) => void,
): Promise<{ store: Store; startup: Startup }> {
  let store: Store;
  try {
    store = Store.open(resolveDbPath({ ...(g.db ? { db: g.db } : {}), ...(g.dataDir ? { dataDir: g.dataDir } : {}) }));
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.error);
  }
  const startup = await recoverAtStartup(store);
  if (startup.interruptedRuns.length)
    say(`Marked run(s) ${startup.interruptedRuns.join(', ')} as interrupted: the process running them had stopped.`);
  if (startup.sweptContainers.length)
    say(`Removed ${startup.sweptContainers.length} container(s) left behind by a stopped Rightsize process.`);
  return { store, startup };
}

/** The engine as a service (what the UI gets), opened like {@link openStore}: same database, same start-up messages. */
export async function openLab(g: GlobalOptions, say: (line: string) => void): Promise<Lab> {
  const { store, startup } = await openStore(g, say);
  try {
    return await Lab.open({ store, startup });
  } catch (e) {
    store.close();
    throw e;
  }
}

/**
 * Opens the engine as a service (the same checks the UI gets), runs `fn`, always closes it; a
 * contract error becomes the command's message and exit code through `asCliError`.
 */
export async function withLab<T>(
  g: GlobalOptions,
  fn: (lab: Lab) => Promise<T>,
  asCliError: (e: ContractError) => CliError,
): Promise<T> {
  const lab = await openLab(g, (line) => void process.stderr.write(`${line}\n`));
  try {
    return await fn(lab);
  } catch (e) {
    if (!(e instanceof ContractError)) throw e;
    throw asCliError(e);
  } finally {
    await lab.close();
  }
}
