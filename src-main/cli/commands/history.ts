import { cellsCsv, samplesCsv } from '../../export/csv.ts';
import { configurationsCsv } from '../../export/cost-csv.ts';
import { recommend } from '../../analysis/recommend.ts';
import { formatTrace } from './size.ts';
import { RUN_SORTS, type RunSort } from '../../store/index.ts';
import type { RunStatus } from '../../model/types.ts';
import type { GlobalOptions } from '../context.ts';
import { appLines } from '../../apps/describe.ts';
import { routesTable } from '../routes-table.ts';
import { runtimeSeenLines } from '../runtime-seen.ts';
import { cellsTable } from '../describe.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { fmtDuration, fmtLocalTime } from '../../common/format.ts';
import { pickGoodput, pickP99, pickText } from '../../common/pick-words.ts';
import { listRunsWithPicks } from '../../service/run-list.ts';
import { rightsizeCommand } from '../invocation.ts';
import { table } from '../format.ts';
import { getRunOrFail, withStore, writeFileOrFail } from '../run-ref.ts';

export interface RunsOptions extends GlobalOptions {
  limit?: string;
  status?: RunStatus;
  search?: string;
  sort?: RunSort;
}

export function runsCommand(o: RunsOptions): Promise<number> {
  if (o.sort && !RUN_SORTS.includes(o.sort))
    throw new CliError(`--sort takes one of ${RUN_SORTS.join(', ')}.`, EXIT.usage);
  const limit = o.limit ? Number(o.limit) : 50;
  if (!Number.isInteger(limit) || limit < 1) throw new CliError('--limit takes a whole number ≥ 1.', EXIT.usage);
  return withStore(o, (store) => {
    const list = listRunsWithPicks(store, {
      limit,
      ...(o.status ? { status: o.status } : {}),
      ...(o.search ? { search: o.search } : {}),
      ...(o.sort ? { sort: o.sort } : {}),
    });
    if (o.json) {
      process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
      return EXIT.ok;
    }
    if (list.total === 0) {
      process.stdout.write(`No runs yet. Try: ${rightsizeCommand()} run --preset quick\n`);
      return EXIT.ok;
    }
    const rows = list.runs.map((r) => [
      String(r.id),
      fmtLocalTime(r.startedAt, false),
      r.name,
      r.status,
      `${r.cellsDone}/${r.cellsTotal}`,
      String(r.cellsFailed),
      fmtDuration(r.durationSec),
      pickText(r.pick),
      pickGoodput(r.pick),
      pickP99(r.pick),
    ]);
    process.stdout.write(`${table(runsHeader(localZone()), rows)}\n`);
    if (list.total > list.runs.length)
      process.stdout.write(`(${list.runs.length} of ${list.total}; --limit to see more)\n`);
    return EXIT.ok;
  });
}

/** The run list's columns: the answer's pick, its goodput ("≥" a lower bound) and p99 — not the fastest cell. */
export const runsHeader = (zone: string): string[] => [
  'id',
  `started (${zone})`,
  'name',
  'status',
  'cells',
  'failed',
  'duration',
  'answer',
  'goodput req/s',
  'p99',
];

/** The local offset from UTC now, for a table's header ("UTC+01:00"); each time in `show` carries its own. */
function localZone(): string {
  return `local, ${fmtLocalTime(new Date().toISOString()).split(' ').pop()}`;
}

export function showCommand(id: string, o: GlobalOptions): Promise<number> {
  return withStore(o, (store) => {
    const run = getRunOrFail(store, id);
    if (o.json) {
      process.stdout.write(`${JSON.stringify(run, null, 2)}\n`);
      return EXIT.ok;
    }
    const h = run.host;
    const preset = run.preset ? ` (preset ${run.preset})` : '';
    const error = run.error ? ` — ${run.error}` : '';
    const gib = Math.round(h.memoryBytes / 2 ** 30);
    process.stdout.write(
      `Run ${run.id} "${run.name}"${preset}: ${run.status}${error}\n` +
        `Started ${fmtLocalTime(run.startedAt)}, ${fmtDuration(run.durationSec)}; ` +
        `${run.cells.length}/${run.cellsTotal} cells\n` +
        `Host ${h.hostname}: ${h.cpuModel}, ${h.cores} cores, ${gib} GiB; Node ${h.nodeVersion}; ` +
        `Docker ${h.dockerVersion ?? '?'} (cgroup v${h.cgroupVersion ?? '?'})\n\n`,
    );
    const apps = appLines(run.apps);
    if (apps.length) process.stdout.write(`${apps.join('\n')}\n\n`);
    if (run.cells.length) process.stdout.write(`${cellsTable(run.cells)}\n`);
    const routes = routesTable(run.cells);
    if (routes) process.stdout.write(`\n${routes}`);
    const seen = runtimeSeenLines(run.cells);
    if (seen.length) process.stdout.write(`\n${seen.join('\n')}\n`);
    if (run.search) process.stdout.write(`\n${formatTrace(run.search)}\n`); // an auto-size run: the path it took
    for (const c of run.cells.filter((x) => x.failure))
      process.stdout.write(`\ncell ${c.config.index + 1}: ${c.failure}\n`);
    return EXIT.ok;
  });
}

export interface ExportOptions extends GlobalOptions {
  csv?: string;
  samples?: string;
  /** One row per configuration: the answer's goodput and cost at the run's prices (export/cost-csv.ts). */
  configurations?: string;
}

export function exportCommand(id: string, o: ExportOptions): Promise<number> {
  if (!o.csv && !o.samples && !o.configurations)
    throw new CliError(
      'Say what to write: --csv FILE (cells), --samples FILE (per-second series) and/or --configurations FILE.',
      EXIT.usage,
    );
  return withStore(o, (store) => {
    const run = getRunOrFail(store, id);
    const write = (file: string, text: string, what: string): void => {
      writeFileOrFail(file, text);
      process.stderr.write(`Wrote ${what} of run ${run.id} to ${file}\n`);
    };
    if (o.csv) write(o.csv, cellsCsv(run), `${run.cells.length} cell(s)`);
    if (o.configurations) {
      const rec = recommend(run, { samples: store.getRunSamples(run.id) });
      write(o.configurations, configurationsCsv(rec), `${rec.configurations.length} configuration(s) and their costs`);
    }
    if (o.samples)
      write(
        o.samples,
        samplesCsv(run, store.getRunSamples(run.id), store.getRunProbeSeconds(run.id)),
        'the per-second samples',
      );
    return EXIT.ok;
  });
}

export function deleteCommand(id: string, o: GlobalOptions & { yes?: boolean }): Promise<number> {
  if (!o.yes) throw new CliError('Deleting a run cannot be undone: add --yes to confirm.', EXIT.usage);
  return withStore(o, (store) => {
    const run = getRunOrFail(store, id);
    if (run.status === 'running') throw new CliError(`Run ${run.id} is still running; cancel it first.`, EXIT.usage);
    store.deleteRun(run.id);
    process.stderr.write(`Deleted run ${run.id}.\n`);
    return EXIT.ok;
  });
}
