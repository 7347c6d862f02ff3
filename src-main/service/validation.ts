// Matrix and auto-size checks where the cells would run, with what they would cost. On this machine
// the limits are its engine's; on a saved target they are the target's largest free node, as the
// run itself takes them (engine/run/limits.ts), from its connection check only: validation never
// sweeps or changes anything there. A target that does not answer in time is checked against what
// is known of it, and the answer says so in `note`; never silently against this machine.
import { appLibrary, appNames, appsWithDependencies, imageAppsOf } from '../apps/library.ts';
import { linkProblems } from '../apps/served-links.ts';
import type { MatrixCheck, SizeCheck } from '../contract/api.ts';
import type { EngineInfo } from '../docker/client.ts';
import { sizeEtaSec, SizeSpecInvalidError, validateSizeSpec } from '../engine/auto-size/spec.ts';
import { poolSize } from '../engine/cell-pool.ts';
import { estimateWithHistory } from '../engine/estimate.ts';
import { forecastMatrix, type ClientForecast } from '../engine/client-forecast.ts';
import { hostLimits } from '../engine/host.ts';
import {
  expandMatrix,
  MatrixInvalidError,
  validateMatrix,
  type HostLimits,
  type Matrix,
  type Problem,
} from '../engine/matrix.ts';
import { linksOf } from '../engine/matrix-dimensions.ts';
import { largestFreeNode, limitsOnNode } from '../engine/run/limits.ts';
import type { Provider, ProviderCheck } from '../providers/provider.ts';
import type { Store } from '../store/index.ts';
import { UnknownTargetError, UnreadableTargetError, type TargetRegistry } from '../targets/registry.ts';
import { LOCAL_TARGET } from '../targets/settings.ts';
import { ANSWER_WAIT_MS, TargetQuestion, type Asked } from './target-answers.ts';

/** The limits a request is checked against where its cells would run, and what to say about them. */
interface Place {
  /** The saved target's name; absent: this machine. */
  target?: string;
  limits: HostLimits;
  /** At path 'target': an unknown or unreadable name, or no node free. */
  problems: Problem[];
  /** Where the limits are not the target's as it answered just now, in words. */
  notes: string[];
  /** A saved target's concurrency as asked for an estimate. */
  k?: Asked<number>;
  /** The target's check did not answer just now (a note says so). */
  silent?: boolean;
}

/** A connection check that reached no node is no answer about nodes: its problems say why. */
const checkWithNodes = async (p: Provider): Promise<ProviderCheck> => {
  const c = await p.check();
  if (!c.nodes.length) throw new Error(c.problems.join('; ') || 'no node answered');
  return c;
};

/**
 * Limits no cap of the request exceeds: where the target's nodes are not known, its CPU and memory
 * caps go unchecked (the run checks them there when it starts) rather than checked against this
 * machine. Limits that only give defaults (an auto-size request's bounds) stay this machine's.
 */
export function uncapped(local: HostLimits, input: unknown): HostLimits {
  const at = (...path: string[]): unknown =>
    path.reduce<unknown>(
      (o, k) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined),
      input,
    );
  const nums = (...vs: unknown[]): number[] =>
    vs.flat().filter((n): n is number => typeof n === 'number' && Number.isFinite(n));
  // Replicas take their caps R times; a budget's totals are what its cells take.
  const r = Math.max(1, ...nums(at('replicas')));
  const times = (xs: number[]): number[] => xs.map((x) => x * r);
  const millis = nums(
    times(nums(at('cpuMillicores'))),
    at('budget', 'cpuMillicores'),
    at('bounds', 'cpuMillis', 'max'),
  );
  const mb = nums(times(nums(at('memoryMb'))), at('budget', 'memoryMb'), at('bounds', 'memoryMb', 'max'));
  return {
    ...local,
    cores: Math.max(local.cores, ...millis.map((m) => Math.ceil(m / 1000)), ...nums(at('load', 'threads'))),
    memoryMb: Math.max(local.memoryMb, ...mb),
  };
}

/** The limits on a saved target as its check answered (or did not), with its problems and notes. */
function onTarget(name: string, local: HostLimits, input: unknown, asked: Asked<ProviderCheck>): Omit<Place, 'target'> {
  const why = asked.error ? ` (${asked.error})` : ` within ${ANSWER_WAIT_MS / 1000} s`;
  const known = asked.answer;
  if (!known) {
    const note = `${name} did not answer${why}: CPU and memory were not checked against its nodes`;
    const notes = [`${note} (a run checks them when it starts)`];
    return { limits: uncapped(local, input), problems: [], notes, silent: true };
  }
  const ago = Math.round((Date.now() - known.at) / 1000);
  const silent = !asked.fresh;
  const notes = silent ? [`${name} did not answer${why}: checked against its nodes as they were ${ago} s ago`] : [];
  const check = known.value;
  const node = largestFreeNode(check);
  if (!node) {
    const busy = check.problems.join('; ') || `none of its ${check.nodes.length} nodes is free for a cell now`;
    const message = `the target "${name}" is not ready: ${busy}`;
    return { limits: uncapped(local, input), problems: [{ path: 'target', message }], notes, silent };
  }
  if (!check.ok) notes.push(`${name} is not ready for a run: ${check.problems.join('; ')}`);
  return { limits: limitsOnNode(local, node), problems: [], notes, silent };
}

const aboutPlace = (p: Place): { target?: string; note?: string } => ({
  ...(p.target ? { target: p.target } : {}),
  ...(p.notes.length ? { note: p.notes.join('; ') } : {}),
});

export class Validation {
  /** Each saved target's connection check, as last asked (the limits). */
  private readonly checks = new TargetQuestion<ProviderCheck>(checkWithNodes);
  /** Each saved target's concurrency, as last asked (the estimate's cells at once). */
  private readonly concurrency = new TargetQuestion<number>((p) =>
    p.concurrency ? p.concurrency() : Promise.resolve(1),
  );

  constructor(
    private readonly store: Store,
    private readonly engine: () => EngineInfo | null,
    /**
     * The saved targets for validation only: concurrency() records the nodes a run's slots go to
     * (Swarm), so a validation during a run must not ask the run's own provider.
     */
    private readonly targets: TargetRegistry,
  ) {}

  /** This machine's limits: what both it and its Docker engine can give, and the app library. */
  localLimits(): HostLimits {
    const lib = appLibrary(this.store);
    return hostLimits(this.engine(), appNames(lib), imageAppsOf(lib));
  }

  /**
   * Where the cells of a run on `name` ('local' or absent: this machine) would run, as known now;
   * with `withK`, a saved target's concurrency too, asked alongside its check (one wait for both).
   */
  private async place(name: string | undefined, input: unknown, withK = false): Promise<Place> {
    const local = this.localLimits();
    if (name === undefined || name === LOCAL_TARGET) return { limits: local, problems: [], notes: [] };
    let provider: Provider;
    try {
      provider = this.targets.provider(name);
    } catch (e) {
      if (!(e instanceof UnknownTargetError || e instanceof UnreadableTargetError)) throw e;
      const problems = [{ path: 'target', message: e.message }];
      return { target: name, limits: uncapped(local, input), problems, notes: [] };
    }
    const [check, k] = await Promise.all([
      this.checks.get(name, provider),
      withK ? this.concurrency.get(name, provider) : undefined,
    ]);
    return { target: name, ...onTarget(name, local, input, check), ...(k ? { k } : {}) };
  }

  /** A request checked where its cells would run: every problem of it there, and of the target. */
  private async verdict<V extends { ok: boolean }>(
    input: unknown,
    name: string | undefined,
    check: (input: unknown, limits: HostLimits) => V,
    withK = false,
  ): Promise<{ place: Place; v: V; problems: Problem[] }> {
    const place = await this.place(name, input, withK);
    const v = check(input, place.limits);
    return { place, v, problems: [...((v as { problems?: Problem[] }).problems ?? []), ...place.problems] };
  }

  /** The matrix's cells whose link an app of it does not serve (apps/served-links.ts); the stored definitions read. */
  private unservedLinks(m: Matrix): Problem[] {
    return linkProblems(
      linksOf(m),
      this.storedApps().filter((a) => m.apps.includes(a.name)),
    );
  }

  /** Every app a matrix can name, as stored: the built-in ones and the user's. */
  private storedApps() {
    const lib = appLibrary(this.store);
    return [...lib.builtIn, ...lib.user];
  }

  /**
   * `matrix.validate`: the matrix where its cells would run; its ETA with the cells a run would take
   * at once (poolSize over a saved target's concurrency; 1 with a note when it does not answer), and
   * on this machine which cells are likely client-bound.
   */
  async matrix(matrix: unknown, name: string | undefined, runName?: string): Promise<MatrixCheck> {
    const { place, v, problems } = await this.verdict(matrix, name, validateMatrix, true);
    // A user's app in cells over a link it does not serve: the run's own refusal, said before Start and by the dry run.
    if (v.ok) problems.push(...this.unservedLinks(v.matrix));
    if (!v.ok || problems.length)
      return { ok: false, cells: 0, etaSec: 0, cellsAtOnce: 1, problems, ...aboutPlace(place) };
    const known = place.k?.answer?.value;
    const k = await poolSize({ concurrency: () => Promise.resolve(known ?? 1) }, v.cells);
    // One cell at a time when the target gave no concurrency: said once when its check did not answer either.
    const alone =
      !place.k || known !== undefined
        ? []
        : [`estimate assumes one cell at a time${place.silent ? '' : `: ${name} did not answer`}`];
    const forecast = place.target ? undefined : this.forecast(v.matrix, place.limits);
    // The run's own rule, with what this machine's history says of each app's cells and of earlier runs.
    const estimate = estimateWithHistory(this.store, {
      cells: expandMatrix(v.matrix, place.limits.imageApps),
      matrix: v.matrix,
      k,
      name: runName ?? v.matrix.name,
      withDependencies: appsWithDependencies(this.storedApps()),
      // This machine's engine raises a warm-up under one CPU (Provider.raisesCap); a saved target's is not known here.
      raisesCap: !place.target,
    });
    return {
      ok: true,
      cells: v.cells,
      etaSec: estimate.totalSec,
      estimate,
      cellsAtOnce: k,
      problems: [],
      ...aboutPlace({ ...place, notes: [...place.notes, ...alone] }),
      ...(forecast ? { forecast } : {}),
    };
  }

  /** `runs.start`'s check: refused (MATRIX_INVALID) exactly when a run there would refuse the matrix. */
  async requireMatrix(matrix: unknown, name: string | undefined): Promise<void> {
    const { problems } = await this.verdict(matrix, name, validateMatrix);
    if (problems.length) throw new MatrixInvalidError(problems);
  }

  /** `size.validate`: the auto-size request where its cells would run, and what the search may cost. */
  async size(spec: unknown, name: string | undefined): Promise<SizeCheck> {
    const { place, v, problems } = await this.verdict(spec, name, validateSizeSpec);
    const about = aboutPlace(place);
    if (!v.ok || problems.length) return { ok: false, problems, gridCells: 0, maxCells: 0, etaSec: 0, ...about };
    return {
      ok: true,
      problems: [],
      gridCells: v.gridCells,
      maxCells: v.spec.maxCells,
      etaSec: sizeEtaSec(v.spec),
      ...about,
    };
  }

  /** `runs.size`'s check: refused (SIZE_INVALID) exactly when a search there would refuse the request. */
  async requireSize(spec: unknown, name: string | undefined): Promise<void> {
    const check = await this.size(spec, name);
    if (!check.ok) throw new SizeSpecInvalidError(check.problems);
  }

  /**
   * Which cells of a valid matrix are likely client-bound on this machine (engine/client-forecast.ts),
   * from this host's history and its stored load-thread ceiling. Undefined with nothing to go on; a
   * forecast that fails (an unreadable history) never fails the validation.
   */
  private forecast(matrix: Matrix, limits: HostLimits): ClientForecast | undefined {
    try {
      return forecastMatrix(this.store, matrix, limits.cores, limits.imageApps);
    } catch {
      return undefined;
    }
  }
}
