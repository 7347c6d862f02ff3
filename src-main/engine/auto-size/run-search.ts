// An auto-size search as a source of cells: validated like a matrix (against the limits where its
// cells run), every cell stored as a normal cell (show, report and export work unchanged), the spec
// as the run's matrix, and the trace rewritten after every step so a crash loses nothing. The run
// lifecycle around it is the session's, the same as a matrix run's.
import { resolveApps } from '../../apps/library.ts';
import { findImage } from '../../docker/image-lookup.ts';
import { CELL_OVERHEAD_SEC } from '../../common/thresholds.ts';
import type { AppDefinition } from '../../apps/catalog.ts';
import type { SearchTrace, SizeSpec } from '../../model/search.ts';
import type { CellConfig, CellResult, RunStatus } from '../../model/types.ts';
import { MatrixInvalidError } from '../matrix.ts';
import { runSession, type CellSource, type Session, type SessionOptions } from '../run/run-session.ts';
import { evidenceOf, judge, type CellEvidence } from './judge.ts';
import { searchCheapest, SearchStopped, type Probe } from './search.ts';
import { SizeSpecInvalidError, validateSizeSpec } from './spec.ts';

export type SearchOptions = SessionOptions & { name?: string };

export interface SearchOutcome {
  runId: number;
  status: RunStatus;
  error?: string;
  trace: SearchTrace;
  cells: CellResult[];
}

const probeKey = (p: Probe): string => JSON.stringify([p.mode, p.workers, p.cpuMillis, p.memoryMb]);

/**
 * Validates the spec, then searches cell by cell. Throws only before anything started (Docker
 * unreachable, an invalid spec, the lab busy); after that, problems become the run's status and the
 * trace's, and the outcome says what happened.
 */
export async function runSearch(input: unknown, o: SearchOptions): Promise<SearchOutcome> {
  const results: CellResult[] = [];
  let trace: SearchTrace | undefined;
  let stopped: SearchStopped | null = null;
  const source: CellSource = {
    plan: async (limits, lib) => {
      const v = validateSizeSpec(input, limits);
      if (!v.ok) throw new SizeSpecInvalidError(v.problems);
      const spec = v.spec;
      const resolved = await resolveApps(lib, [spec.app], (image) => findImage(image));
      if (!resolved.ok) throw new MatrixInvalidError(resolved.problems);
      const app = resolved.apps[0]!;
      const name = o.name ?? `size ${spec.app}`;
      const t: SearchTrace = (trace = {
        spec,
        steps: [],
        status: 'running',
        found: null,
        words: 'searching…',
        gridCells: v.gridCells,
        bestSoFar: null,
      });
      const save = (s: Session): void =>
        void s.store.setRunSearch(s.runId, t, Math.max(t.steps.length, t.status === 'running' ? spec.maxCells : 0));
      return {
        what: `auto-size "${name}"`,
        apps: [app],
        record: { create: { name, preset: null, matrix: spec, cellsTotal: spec.maxCells, apps: [app] } },
        cellDefaults: { placement: true, timeoutSec: 10 },
        run: (s) => search(s, { spec, app, name, trace: t, results, save }),
        errorOf: (e) => {
          stopped = e instanceof SearchStopped ? e : null;
          return (stopped?.reason as Error)?.message ?? (e as Error).message;
        },
        end: (s, status, error) => {
          if (status !== 'completed') endTrace(t, status, error, stopped);
          save(s);
        },
      };
    },
  };
  const outcome = await runSession(source, o);
  return { ...outcome, trace: trace!, cells: results };
}

interface SearchRun {
  spec: SizeSpec;
  app: AppDefinition;
  name: string;
  trace: SearchTrace;
  results: CellResult[];
  save: (s: Session) => void;
}

async function search(s: Session, r: SearchRun): Promise<void> {
  const { spec, trace, results } = r;
  const perCell = spec.warmupSec + spec.durationSec;
  const overheads: number[] = [];
  const overhead = (): number =>
    overheads.length ? overheads.reduce((a, b) => a + b, 0) / overheads.length : CELL_OVERHEAD_SEC;
  const eta = (done: number): number => Math.max(0, spec.maxCells - done) * (perCell + overhead());
  s.started({ name: r.name, total: spec.maxCells, cells: [], etaSec: eta(0) });
  r.save(s);
  const evidence = new Map<string, CellEvidence[]>();
  const result = await searchCheapest(spec, {
    measure: async (p, reason) => {
      if (s.signal?.aborted) throw new Error('cancelled');
      const key = probeKey(p);
      const before = evidence.get(key) ?? [];
      const cell: CellConfig = {
        index: results.length,
        repetition: before.length,
        app: r.app.name,
        mode: p.mode,
        workers: p.workers,
        cpuMillis: p.cpuMillis,
        memoryMb: p.memoryMb,
        load: { model: 'rate', rate: spec.rate, connections: spec.connections },
        durationSec: spec.durationSec,
        warmupSec: spec.warmupSec,
        env: {},
        ...(spec.probe === false ? {} : { probe: true as const }),
      };
      const done = results.length;
      const { cellId, result: cr } = await s.runCell(cell, {
        total: spec.maxCells,
        etaSec: (wall) => {
          if (wall === undefined) return eta(done);
          overheads.push(wall - perCell);
          return eta(done + 1);
        },
      });
      results.push(cr);
      if (s.signal?.aborted) {
        // The cancelled cell is stored: its step says so, so the path and the cells still match.
        trace.steps.push({ cellId, ...p, reason, outcome: 'failed', detail: 'cancelled while it measured' });
        throw new Error('cancelled');
      }
      const stored = s.store.getRun(s.runId)?.cells.find((c) => c.id === cellId);
      if (!stored) throw new Error(`run ${s.runId} was deleted from the history by another process while it ran`);
      const all = [...before, evidenceOf(stored, s.store.getSamples(cellId))];
      evidence.set(key, all);
      return { cellId, judgement: judge(all, spec) };
    },
    onStep: (step) => {
      trace.steps.push(step);
      r.save(s); // after every step: a crash loses nothing of the path
      // Said after the trace is stored, so a UI that re-reads the run on it sees the step.
      s.emit({ type: 'search-step', runId: s.runId, number: trace.steps.length, step });
    },
  });
  Object.assign(trace, {
    status: result.status,
    found: result.found,
    bestSoFar: result.bestSoFar,
    words: result.words,
  });
}

/** The trace of a search that did not finish: cancelled or failed, and the best it had found so far. */
function endTrace(
  trace: SearchTrace,
  status: RunStatus,
  error: string | undefined,
  stopped: SearchStopped | null,
): void {
  const so = stopped?.bestSoFar ?? trace.bestSoFar ?? null;
  const what = status === 'cancelled' ? 'Cancelled' : `Failed (${error})`;
  const best = so
    ? ` The cheapest configuration meeting the objective so far: ${so.mode} × ${so.workers}, ${so.cpuMillis}m, ` +
      `${so.memoryMb} MB (cheaper ones not ruled out).`
    : '';
  Object.assign(trace, {
    status: status === 'cancelled' ? 'cancelled' : 'failed',
    bestSoFar: so,
    words: `${what} after ${trace.steps.length} cell(s).${best}`,
  });
}
