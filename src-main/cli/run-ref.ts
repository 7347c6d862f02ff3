import { writeFileSync } from 'node:fs';
import type { RunDetail, Store } from '../store/index.ts';
import { openStore, type GlobalOptions } from './context.ts';
import { CliError, EXIT } from './exit-codes.ts';
import { rightsizeCommand } from './invocation.ts';

// Shared by the commands that read the history (runs, show, export, delete, report).

/** Opens the store, hands it to `fn`, always closes it. History commands print to stdout. */
export async function withStore<T>(g: GlobalOptions, fn: (s: Store) => T): Promise<T> {
  const { store } = await openStore(g, (l) => process.stderr.write(`${l}\n`));
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

/** A run id as typed on the command line. */
export function runId(text: string): number {
  const id = Number(text);
  if (!Number.isInteger(id) || id < 1)
    throw new CliError(`"${text}" is not a run id (a whole number, see \`${rightsizeCommand()} runs\`).`, EXIT.usage);
  return id;
}

export function getRunOrFail(store: Store, text: string): RunDetail {
  const run = store.getRun(runId(text));
  if (!run) throw new CliError(`No run ${text} in ${store.path}. See \`${rightsizeCommand()} runs\`.`, EXIT.usage);
  return run;
}

/** Writes an output file; a failure is the user's to fix (path, permissions), so no stack trace. */
export function writeFileOrFail(file: string, text: string): void {
  try {
    writeFileSync(file, text);
  } catch (e) {
    throw new CliError(`Cannot write ${file}: ${(e as Error).message}`, EXIT.error);
  }
}
