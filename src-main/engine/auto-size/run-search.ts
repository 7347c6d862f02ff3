// An auto-size search as a run: validated like a matrix, in the lab like a matrix run, every cell
// stored as a normal cell (show, report and export work unchanged), the spec as the run's matrix,
// and the trace rewritten after every step so a crash loses nothing.
import { appLibrary, resolveApps } from '../../apps/library.ts';
import { checkEngine } from '../../docker/client.ts';
import { findImage } from '../../docker/image-lookup.ts';
import { withBuildSignal } from '../../docker/image-build.ts';
import { enterLab } from '../../lab-lock/enter-lab.ts';
import { CELL_OVERHEAD_SEC } from '../../common/thresholds.ts';
import { currentSession } from '../../session/session.ts';
import { hostFacts } from '../host.ts';
import { MatrixInvalidError } from '../matrix.ts';
import { beginRun, buildImages, limitsWhereCellsRun, runStoredCell, type RunOptions } from '../run-matrix.ts';
import type { RunListener } from '../../model/events.ts';
import type { CellConfig, CellResult, RunStatus } from '../../model/types.ts';
import { evidenceOf, judge, type CellEvidence } from './judge.ts';
import { searchCheapest, SearchStopped, type Probe } from './search.ts';
import { SizeSpecInvalidError, validateSizeSpec } from './spec.ts';
import type { SearchTrace } from '../../model/search.ts';

export type SearchOptions = Omit<RunOptions, 'preset'>;

export interface SearchOutcome {
  runId: number;
  status: RunStatus;
  error?: string;
  trace: SearchTrace;
  cells: CellResult[];
}

/** The log line after each stored step starts with this (a CLI prints its own step lines instead). */
export const STEP_LOG_PREFIX = 'auto-size step ';

const probeKey = (p: Probe): string => JSON.stringify([p.mode, p.workers, p.cpuMillis, p.memoryMb]);

/**
 * Validates the spec, then searches cell by cell. Throws only before anything started (Docker
 * unreachable, an invalid spec, the lab busy); after that, problems become the run's status and the
 * trace's, and the outcome says what happened.
 */
export async function runSearch(input: unknown, o: SearchOptions): Promise<SearchOutcome> {
  const engine = await checkEngine();
  const lib = appLibrary(o.store);
  const { limits, swept } = await limitsWhereCellsRun(engine, lib, o.provider);
  const v = validateSizeSpec(input, limits);
  if (!v.ok) throw new SizeSpecInvalidError(v.problems);
  const spec = v.spec;
  const resolved = await resolveApps(lib, [spec.app], (image) => findImage(image));
  if (!resolved.ok) throw new MatrixInvalidError(resolved.problems);
  const app = resolved.apps[0]!;
  const name = o.name ?? `size ${spec.app}`;
  const { base, lease, noReaper } = await enterLab(engine, {
    what: `auto-size "${name}" (history: ${o.store.path})`,
    ...(o.base ? { strategy: o.base } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    wait: Boolean(o.waitForLab),
    ...(o.onLabWait ? { onWait: o.onLabWait } : {}),
  });
  const { runId, emit, log } = await beginRun(o, lease, {
    name,
    preset: null,
    matrix: spec,
    host: hostFacts(engine, [app]),
    ownerSession: currentSession(),
    cellsTotal: spec.maxCells,
    apps: [app],
  });
  const trace: SearchTrace = {
    spec,
    steps: [],
    status: 'running',
    found: null,
    words: 'searching…',
    gridCells: v.gridCells,
    bestSoFar: null,
  };
  const save = (): void =>
    void o.store.setRunSearch(
      runId,
      trace,
      Math.max(trace.steps.length, trace.status === 'running' ? spec.maxCells : 0),
    );

  const perCell = spec.warmupSec + spec.durationSec;
  const overheads: number[] = [];
  const overhead = (): number =>
    overheads.length ? overheads.reduce((a, b) => a + b, 0) / overheads.length : CELL_OVERHEAD_SEC;
  const eta = (done: number): number => Math.max(0, spec.maxCells - done) * (perCell + overhead());
  emit({ type: 'run-started', runId, name, total: spec.maxCells, cells: [], etaSec: eta(0) });
  if (noReaper) log('warn', `${noReaper}. If this process dies, the next Rightsize start removes its containers.`);
  save();

  const results: CellResult[] = [];
  const evidence = new Map<string, CellEvidence[]>();
  const warned = new Set<string>();
  let status: RunStatus = 'completed';
  let error: string | undefined;
  try {
    const images = await withBuildSignal(o.signal, () => buildImages([app], base, (line) => log('info', line)));
    const image = images.get(app.name)!;
    if (o.provider) await o.provider.prepareImage(image.tag); // built here, shipped there
    if (swept.length)
      log('info', `removed what stopped Rightsize processes left on ${o.provider!.name}: ${swept.join(', ')}`);
    const result = await searchCheapest(spec, {
      measure: async (p, reason) => {
        if (o.signal?.aborted) throw new Error('cancelled');
        const key = probeKey(p);
        const before = evidence.get(key) ?? [];
        const cell: CellConfig = {
          index: results.length,
          repetition: before.length,
          app: app.name,
          mode: p.mode,
          workers: p.workers,
          cpuMillis: p.cpuMillis,
          memoryMb: p.memoryMb,
          load: { model: 'rate', rate: spec.rate, connections: spec.connections },
          durationSec: spec.durationSec,
          warmupSec: spec.warmupSec,
          env: {},
        };
        const done = results.length;
        const { cellId, result: r } = await runStoredCell(cell, {
          store: o.store,
          runId,
          engine,
          app,
          image,
          hostCores: limits.cores,
          placement: true,
          timeoutSec: 10,
          ...(o.signal ? { signal: o.signal } : {}),
          ...(o.provider ? { provider: o.provider } : {}),
          emit,
          warned,
          total: spec.maxCells,
          etaSec: (wall) => {
            if (wall === undefined) return eta(done);
            overheads.push(wall - perCell);
            return eta(done + 1);
          },
        });
        results.push(r);
        if (o.signal?.aborted) {
          // The cancelled cell is stored: its step says so, so the path and the cells still match.
          trace.steps.push({ cellId, ...p, reason, outcome: 'failed', detail: 'cancelled while it measured' });
          throw new Error('cancelled');
        }
        const stored = o.store.getRun(runId)?.cells.find((c) => c.id === cellId);
        if (!stored) throw new Error(`run ${runId} was deleted from the history by another process while it ran`);
        const all = [...before, evidenceOf(stored, o.store.getSamples(cellId))];
        evidence.set(key, all);
        return { cellId, judgement: judge(all, spec) };
      },
      onStep: (step) => {
        trace.steps.push(step);
        save(); // after every step: a crash loses nothing of the path
        // Said after the trace is stored, so a UI that re-reads the run on it sees the step.
        log('info', `${STEP_LOG_PREFIX}${trace.steps.length}: ${step.outcome} — ${step.detail}`);
      },
    });
    Object.assign(trace, {
      status: result.status,
      found: result.found,
      bestSoFar: result.bestSoFar,
      words: result.words,
    });
  } catch (e) {
    const stopped = e instanceof SearchStopped ? e : null;
    status = o.signal?.aborted ? 'cancelled' : 'failed';
    error = status === 'cancelled' ? undefined : ((stopped?.reason as Error)?.message ?? (e as Error).message);
    const so = stopped?.bestSoFar ?? null;
    Object.assign(trace, {
      status: status === 'cancelled' ? 'cancelled' : 'failed',
      bestSoFar: so,
      words: `${status === 'cancelled' ? 'Cancelled' : `Failed (${error})`} after ${trace.steps.length} cell(s).${so ? ` The cheapest configuration meeting the objective so far: ${so.mode} × ${so.workers}, ${so.cpuMillis}m, ${so.memoryMb} MB (cheaper ones not ruled out).` : ''}`,
    });
  } finally {
    await lease.release().catch(() => {}); // the reaper removes it if this fails
    try {
      save();
      o.store.finishRun(runId, status, error ?? null);
    } catch (e) {
      status = 'failed';
      error = `${error ? `${error}; ` : ''}the search's end could not be stored: ${(e as Error).message}`;
    }
    emit({ type: 'run-finished', runId, status, ...(error ? { error } : {}) });
  }
  return { runId, status, trace, cells: results, ...(error ? { error } : {}) };
}
