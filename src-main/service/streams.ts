// The contract's event streams over the lab's one bus: 'status' (engine status), 'run' (every run
// event) and 'build' (build log lines), each subscription filtered to what its input asks for.
import type { EventEmitter } from 'node:events';
import type { AppBuildLine, EngineStatus, StreamEvent, StreamInput, StreamName } from '../contract/api.ts';
import type { RunEvent } from '../model/events.ts';

/** What a new subscriber gets at once: the current status, the log so far of each build in progress. */
export interface StreamsNow {
  status: () => EngineStatus;
  buildLogs: () => Iterable<[string, string[]]>;
}

type Filter =
  ['status', (e: EngineStatus) => void] | ['run', (e: RunEvent) => void] | ['build', (e: AppBuildLine) => void];

/** Subscribes `listener` to the stream `name`; returns the function that unsubscribes it. */
export function subscribe<K extends StreamName>(
  bus: EventEmitter,
  now: StreamsNow,
  name: K,
  input: StreamInput<K>,
  listener: (e: StreamEvent<K>) => void,
): () => void {
  const send = listener as (e: unknown) => void;
  const want = input as { runId?: number; cellId?: number; name?: string };
  const forRun = (e: RunEvent): boolean =>
    (want.runId === undefined || e.runId === want.runId) &&
    (want.cellId === undefined || ('cellId' in e && e.cellId === want.cellId));
  const onRun =
    (keep: (e: RunEvent) => boolean) =>
    (e: RunEvent): void =>
      void (keep(e) && forRun(e) && send(e));
  const forApp = (e: AppBuildLine): void => void ((want.name ?? e.name) === e.name && send(e));
  const filters: Record<StreamName, Filter> = {
    'engine.status': ['status', send],
    'apps.buildLog': ['build', forApp],
    'run.progress': ['run', onRun((e) => e.type !== 'sample')],
    'run.samples': ['run', onRun((e) => e.type === 'sample')],
    'run.cellFinished': ['run', onRun((e) => e.type === 'cell-finished')],
  };
  const [event, fn] = filters[name] as [string, (e: unknown) => void];
  bus.on(event, fn);
  if (name === 'engine.status') send(now.status()); // a new subscriber gets the current state at once
  if (name === 'apps.buildLog')
    for (const [app, lines] of now.buildLogs()) for (const line of lines) forApp({ name: app, line });
  return () => void bus.off(event, fn);
}
