// The contract's calls, name by name, over the lab's parts. Every handler's errors are translated in
// one place (service/errors.ts `guard`), so none here catches an engine error to reword it.
import { recommend } from '../analysis/index.ts';
import type { AnswerInput, CallInput, CallName, CallOutput, SaveFile, Settings } from '../contract/api.ts';
import { deployAnswer } from '../deploy/from-cell.ts';
import { cellsCsv, probeCsv, samplesCsv } from '../export/csv.ts';
import { configurationsCsv } from '../export/cost-csv.ts';
import { htmlReport } from '../export/html-report.ts';
import { listPresets } from '../presets/presets.ts';
import type { Provider } from '../providers/provider.ts';
import { isSessionAlive } from '../session/session.ts';
import type { Store } from '../store/index.ts';
import { resolveTarget, type TargetRegistry } from '../targets/registry.ts';
import { LOCAL_TARGET } from '../targets/settings.ts';
import type { AppService } from './apps.ts';
import { conflict, guard, invalid, notFound } from './errors.ts';
import { importHandlers } from './import-requests.ts';
import { listRunsWithPicks } from './run-list.ts';
import { runProbe } from './run-probe.ts';
import { baselineHandlers, startWithBaseline } from './baselines.ts';
import { reportBaseline } from '../export/baseline-of.ts';
import type { RunSupervisor } from './run-supervisor.ts';
import type { StatusPoller } from './status-poller.ts';
import { runView, shownAnswer, shownRun } from './views.ts';
import type { Validation } from './validation.ts';

export type Handlers = { [K in CallName]: (input: CallInput<K>) => Promise<CallOutput<K>> | CallOutput<K> };

/** What only the host can do (the Electron shell: a native save dialog). */
export interface HostHooks {
  saveFile?: (file: SaveFile) => Promise<CallOutput<'files.save'>>;
}

/** The lab's parts the handlers call. */
export interface LabParts {
  store: Store;
  poller: StatusPoller;
  runs: RunSupervisor;
  apps: AppService;
  validation: Validation;
  /** Saved targets as the runs' providers. */
  targets: TargetRegistry;
  hooks: HostHooks;
}

const DEFAULT_SETTINGS: Settings = { baseImage: 'auto' };

export const settingsOf = (store: Store): Settings => ({
  ...DEFAULT_SETTINGS,
  ...(store.getSettings() as Partial<Settings>),
});

function runOf(store: Store, runId: number) {
  const run = store.getRun(runId);
  if (!run) throw notFound(`There is no run ${runId}.`);
  return run;
}

/** A run's answer as asked (margin, SLO), with the samples it was read from. */
function answerOf(store: Store, { runId, marginPct, slo, prices }: AnswerInput) {
  const run = runOf(store, runId);
  const samples = store.getRunSamples(runId);
  // The probe's seconds give each decision its cause line, as the CLI's report does.
  const probe = store.getRunProbeSeconds(runId);
  const rec = recommend(run, {
    samples,
    probe,
    ...(marginPct !== undefined ? { marginPct } : {}),
    ...(slo ? { slo } : {}),
    ...(prices ? { prices } : {}),
  });
  return { run, samples, rec };
}

/** Where a run asked to go: undefined for this machine's engine, else the saved target's provider. */
const providerFor = (targets: TargetRegistry, name: string | undefined): Provider | undefined =>
  name === undefined || name === LOCAL_TARGET ? undefined : targets.provider(name);

function table({ store, poller, runs, apps, validation, targets, hooks }: LabParts): Handlers {
  return {
    'engine.status': () => poller.status,
    'engine.recheck': () => poller.recheck(),
    'apps.list': () => apps.list(),
    'apps.check': ({ app, replacing }) => apps.check(app, replacing),
    'apps.add': async ({ app }) => (await apps.save(app)).info,
    'apps.update': async ({ name, app }) => (await apps.save(app, name)).info,
    'apps.remove': ({ name }) => apps.remove(name),
    'apps.build': ({ name }) => apps.build(name),
    'apps.tryOut': ({ name }) => apps.tryOut(name),
    ...importHandlers(),
    'presets.list': () => listPresets(),
    'matrix.validate': ({ matrix, target, name }) => validation.matrix(matrix, target, name),
    'runs.start': (input) =>
      startWithBaseline(store, input, (i) =>
        runs.matrix(i, providerFor(targets, i.target), () => validation.requireMatrix(i.matrix, i.target)),
      ),
    'size.validate': ({ spec, target }) => validation.size(spec, target),
    'runs.size': (input) =>
      runs.search(input, providerFor(targets, input.target), () => validation.requireSize(input.spec, input.target)),
    'runs.cancel': ({ runId }) => ({ cancelled: runs.cancel(runId) }),
    'runs.list': (q) => listRunsWithPicks(store, q),
    'runs.get': ({ runId }) => {
      const run = runOf(store, runId);
      return { ...shownRun(run), view: runView(run) };
    },
    'runs.delete': ({ runId }) => {
      if (runs.activeRunId === runId) throw conflict(`Run ${runId} is in progress: cancel it before deleting it.`);
      // another process may be running it: RunInUseError, a CONFLICT
      if (!store.deleteRun(runId, isSessionAlive)) throw notFound(`There is no run ${runId}.`);
      return { deleted: true };
    },
    'runs.samples': ({ runId }) =>
      [...store.getRunSamples(runOf(store, runId).id)].map(([cellId, samples]) => ({ cellId, samples })),
    'cells.samples': ({ cellId }) => store.getSamples(cellId),
    'runs.probe': (input) => runProbe(store, runOf(store, input.runId), input),
    'export.csv': ({ runId, kind }) => {
      const run = runOf(store, runId);
      const content =
        kind === 'cells'
          ? cellsCsv(run)
          : kind === 'configurations'
            ? configurationsCsv(answerOf(store, { runId }).rec)
            : kind === 'probe'
              ? probeCsv(run, store.getRunProbeSeconds(runId))
              : samplesCsv(run, store.getRunSamples(runId), store.getRunProbeSeconds(runId));
      return { filename: `rightsize-run-${runId}-${kind}.csv`, mime: 'text/csv', content };
    },
    'files.save': (file) =>
      hooks.saveFile?.(file) ?? {
        saved: false,
        reason: 'this host has no save dialog: the browser downloads the file',
      },
    'runs.recommend': (input) => {
      const { run, rec } = answerOf(store, input);
      return shownAnswer(rec, run.cells);
    },
    'export.html': (input) => {
      const { run, samples, rec } = answerOf(store, input);
      const baseline = reportBaseline(store, input.runId);
      const content = htmlReport(run, samples, rec, store.getRunProbeSeconds(input.runId), baseline);
      return { filename: `rightsize-run-${input.runId}-report.html`, mime: 'text/html', content };
    },
    'deploy.snippets': ({ cellId, ...input }) => {
      const { run, samples, rec } = answerOf(store, input);
      return deployAnswer(run, rec, samples, cellId); // a cell that cannot be deployed: NOT_FOUND
    },
    'settings.get': () => settingsOf(store),
    'settings.set': (values) => {
      store.setSettings(values);
      return settingsOf(store);
    },
    'targets.list': () => targets.list(),
    'targets.add': async ({ target }) => {
      const r = await targets.add(target);
      if (!r.ok) throw invalid('INVALID_INPUT', 'The target is not valid; nothing was saved', r.problems);
      return r.info;
    },
    'targets.remove': ({ name }) => {
      if (name === LOCAL_TARGET)
        throw conflict('"local" is this machine\'s Docker engine: it is always there and cannot be removed.');
      return { removed: targets.remove(name) };
    },
    'targets.check': ({ name }) => {
      resolveTarget(store, name); // an unknown name is NOT_FOUND, before any connection
      return targets.check(name);
    },
    ...baselineHandlers(store),
  };
}

/** The handler table, every handler's errors translated (service/errors.ts). */
export function makeHandlers(parts: LabParts): Handlers {
  const raw = table(parts);
  const guarded = Object.fromEntries(
    Object.entries(raw).map(([name, fn]) => [name, guard(name as CallName, fn as (input: unknown) => unknown)]),
  );
  return guarded as Handlers;
}
