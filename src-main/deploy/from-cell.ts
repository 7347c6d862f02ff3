/**
 * Deploy snippets for any measured cell the user picks, not only the recommendation: the cell's own
 * configuration, its own goodput (with the batch-means interval of its seconds when it has them) and
 * p99, and how sure that is in words. Pure: the CLI (`report --emit … --cell N`) and the service
 * (`deploy.snippets`) share it.
 */
import { cellGoodput, cellGoodSeries, configurationKey } from '../analysis/decide/group.ts';
import { summarizeOne } from '../analysis/decide/stats.ts';
import type { Recommendation } from '../analysis/types.ts';
import { fmtNum, fmtUs } from '../common/format.ts';
import { cellLabel } from '../common/labels.ts';
import type { Sample } from '../model/types.ts';
import type { RunDetail, StoredCell } from '../model/stored.ts';
import { answerKey, recommendedMemoryLimitMb } from '../analysis/size/sizing.ts';
import {
  heapFitOf,
  kneePick,
  nothingToDeploy,
  provenanceLines,
  recommendedDeploy,
  snippetDeploy,
  snippetFiles,
  SNIPPET_KINDS,
  type DeployConfig,
  type DeployInput,
  type DeployProvenance,
  type SnippetFile,
  type SnippetKind,
  type SnippetState,
} from './snippets.ts';
import { runtimeOf } from './settings.ts';
import { verificationOf } from './verification.ts';

/** What a cell is called to a person: its # in the run, as `rightsize show` and the run page list it. */
export const cellNumber = (c: StoredCell): number => c.config.index + 1;

/** A cell has something to deploy when it finished with a load result. */
export const isDeployableCell = (c: StoredCell): boolean =>
  c.status === 'ok' && c.rpsMean !== null && c.p99Us !== null && c.config.phase !== 'verify';

/** A cell reference that names no cell with a measurement; `valid` lists the ones that have one. */
export class CellNotDeployableError extends Error {
  constructor(
    message: string,
    readonly valid: number[],
  ) {
    super(message);
    this.name = 'CellNotDeployableError';
  }
}

/** "3–7, 9, 12": consecutive numbers as ranges, so a run with hundreds of cells still fits on a line. */
export function numberRanges(ns: readonly number[]): string {
  const sorted = [...new Set(ns)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(j === i ? String(sorted[i]) : j === i + 1 ? `${sorted[i]}, ${sorted[j]}` : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

const WHY_NOT: Record<Exclude<StoredCell['status'], 'ok'>, string> = {
  oom: 'was OOM-killed',
  failed: 'failed',
  cancelled: 'was cancelled',
  interrupted: 'was interrupted',
  running: 'has not finished',
};

/**
 * The cell a reference names, when it has a measurement to deploy. `by: 'number'` is the cell's #
 * in its run (what a person sees: `rightsize show`, the run page); `by: 'id'` the stored id (what
 * the UI passes). Anything else throws CellNotDeployableError with the valid references.
 */
export function findDeployableCell(run: RunDetail, ref: number, by: 'number' | 'id'): StoredCell {
  const name = (c: StoredCell): number => (by === 'number' ? cellNumber(c) : c.id);
  const deployable = run.cells.filter(isDeployableCell);
  const valid = deployable.map(name);
  const what = by === 'number' ? 'cell' : 'cell id';
  const choices = valid.length
    ? ` ${by === 'number' ? 'Cells' : 'Cell ids'} with a measurement to deploy: ` +
      `${numberRanges(valid)}${by === 'number' ? ` (the # column of \`rightsize show ${run.id}\`)` : ''}.`
    : ' No cell of it finished with a measurement, so there is nothing to deploy.';
  const found = run.cells.find((c) => name(c) === ref);
  if (!found) throw new CellNotDeployableError(`Run ${run.id} has no ${what} ${ref}.${choices}`, valid);
  if (!isDeployableCell(found)) {
    const why =
      found.config.phase === 'verify'
        ? 'is a verification cell (a snippet run exactly as emitted), not a configuration of the matrix'
        : found.status === 'ok'
          ? 'has no load result'
          : WHY_NOT[found.status];
    throw new CellNotDeployableError(
      `Cell ${cellNumber(found)} of run ${run.id} (${cellLabel(found.config)}) ${why}: it has no ` +
        `measurement to deploy.${choices}`,
      valid,
    );
  }
  return found;
}

/** Why a cell's numbers deserve less trust than the answer's: its interval, its flags, its configuration's standing. */
function caveats(c: StoredCell, rec: Recommendation, intervalFrom: 'batch-means' | null): string[] {
  const out = [
    intervalFrom === 'batch-means'
      ? 'its interval comes from batch means of its own seconds, blind to run-to-run variation'
      : 'no interval: the cell has no per-second series',
  ];
  const flags = [...new Set(c.flags.map((f) => f.kind))];
  if (flags.includes('unstable')) out.push('flagged unstable (its seconds were not steady), and counted in the answer');
  const others = flags.filter((f) => f !== 'unstable');
  if (others.length) out.push(`flagged ${others.join(', ')}`);
  const conf = rec.configurations.find((x) => x.key === configurationKey(c.config));
  if (conf?.disqualified.length) out.push(`its configuration cannot be recommended (${conf.disqualified.join('; ')})`);
  return out;
}

/**
 * The snippets' input for one measured cell. When the cell is a repetition of the recommended
 * configuration, the confidence is the recommendation's own; otherwise it says it is one measured
 * cell, not the recommendation, and why it may deserve less trust.
 */
export function cellDeploy(
  run: RunDetail,
  c: StoredCell,
  rec: Recommendation,
  samples?: ReadonlyMap<number, readonly Sample[]>,
): DeployInput {
  const g = summarizeOne(cellGoodput(c), cellGoodSeries(c, samples));
  const k = c.config;
  const key = configurationKey(k);
  const rule = recommendedMemoryLimitMb(rec, key);
  const heapFit = heapFitOf(rec, key);
  const config: DeployConfig = {
    app: k.app,
    mode: k.mode,
    workers: k.workers,
    cpuMillis: k.cpuMillis,
    memoryMb: k.memoryMb,
    ...(rule !== null ? { ruleMemoryMb: rule } : {}),
    // The cell's own topology, flags and the exact Node.js it ran (else the one its matrix named).
    ...runtimeOf({ replicas: k.replicas, node: c.nodeVersion ?? k.node, nodeFlags: k.nodeFlags, env: k.envSet }),
    ...(heapFit ? { heapFit } : {}),
  };
  const n = cellNumber(c);
  const repetition = `cell ${n} (repetition ${k.repetition + 1})`;
  const scopeOf = rec.scopes.find((s) => s.knee.cellIndexes.includes(k.index));
  // A repetition of what the answer deploys (analysis/size/sizing.ts answerPick), whatever made it the answer.
  const recommended = recommendedDeploy(rec);
  const isRecommended = recommended !== null && key === answerKey(rec);
  const caveat = caveats(c, rec, g.intervalFrom === 'batch-means' ? 'batch-means' : null);
  let pick: string;
  let confidence: string;
  if (isRecommended) {
    pick = `${repetition} of the recommended configuration, ${recommended.provenance.pick}`;
    confidence = `${recommended.provenance.confidence}; this cell alone: ${caveat.join('; ')}`;
  } else {
    pick = scopeOf
      ? `${repetition}, one repetition of ${kneePick(rec, scopeOf)} — not the recommended configuration`
      : `${repetition}, picked by hand`;
    confidence = `one measured cell, not the recommendation; ${caveat.join('; ')}`;
  }
  const provenance: DeployProvenance = {
    runId: run.id,
    runName: run.name,
    load: k.load,
    goodput: { mean: g.mean, low: g.ci ? g.ci.low : null, high: g.ci ? g.ci.high : null },
    p99Us: c.p99Us,
    confidence,
    pick,
  };
  const verification = verificationOf(run, key);
  return {
    config,
    provenance,
    ...(verification ? { verification } : {}),
    verifyCommand: isRecommended ? `rightsize verify ${run.id}` : `rightsize verify ${run.id} --cell ${n}`,
  };
}

/** The recommendation's snippets' input with the run's stored verification of it. null: nothing to deploy. */
export function recommendedDeployOf(run: Pick<RunDetail, 'cells'>, rec: Recommendation): DeployInput | null {
  const key = answerKey(rec);
  return recommendedDeploy(rec, key === null ? null : verificationOf(run, key));
}

/** One cell as the UI lists it to pick from. */
export interface DeployChoice {
  cellId: number;
  /** The cell's # in its run. */
  number: number;
  /** "#3 hello cluster×2 1000m/256MB c20 — 24,100 req/s, p99 1.79 ms". */
  label: string;
  /** A repetition of the recommended configuration. */
  recommended: boolean;
}

/**
 * What `deploy.snippets` answers: the configuration, why and how sure, its three snippets, and the cells one could pick
 * instead.
 */
export interface DeployAnswer {
  /** The stored id of the cell shown, or null for the recommendation. */
  cellId: number | null;
  config: DeployConfig;
  provenance: DeployProvenance;
  /**
   * What every snippet's opening comment says (the run, why this configuration, the load, how sure), without the
   * comment marker.
   */
  lines: string[];
  snippets: SnippetFile[];
  /** Per snippet: verified, the fallback, or unverified (with the command that verifies it), in one sentence. */
  verification: { kind: SnippetKind; state: SnippetState; line: string }[];
  choices: DeployChoice[];
}

/**
 * Thrown when a run has no recommendation to deploy (nothing qualified; a search that found none or could not decide).
 */
export class NothingToDeployError extends Error {
  constructor(rec: Recommendation) {
    super(`${nothingToDeploy(rec)} Pick a measured cell instead.`);
    this.name = 'NothingToDeployError';
  }
}

export function deployChoices(run: RunDetail, rec: Recommendation): DeployChoice[] {
  const key = recommendedDeploy(rec) ? answerKey(rec) : null;
  const recommended = new Set(rec.configurations.find((x) => x.key === key)?.cellIndexes ?? []);
  return run.cells.filter(isDeployableCell).map((c) => ({
    cellId: c.id,
    number: cellNumber(c),
    label: `#${cellNumber(c)} ${cellLabel(c.config)} — ${fmtNum(cellGoodput(c))} req/s, p99 ${fmtUs(c.p99Us)}`,
    recommended: recommended.has(c.config.index),
  }));
}

/** The snippets of the recommendation (no cellId), or of the cell with that stored id. */
export function deployAnswer(
  run: RunDetail,
  rec: Recommendation,
  samples: ReadonlyMap<number, readonly Sample[]> | undefined,
  cellId?: number,
): DeployAnswer {
  let input: DeployInput;
  let shown: StoredCell | null = null;
  if (cellId === undefined) {
    const r = recommendedDeployOf(run, rec);
    if (!r) throw new NothingToDeployError(rec);
    input = r;
  } else {
    shown = findDeployableCell(run, cellId, 'id');
    input = cellDeploy(run, shown, rec, samples);
  }
  return {
    cellId: shown?.id ?? null,
    config: input.config,
    provenance: input.provenance,
    lines: provenanceLines(input),
    snippets: snippetFiles(input, shown ? cellNumber(shown) : null),
    choices: deployChoices(run, rec),
    verification: SNIPPET_KINDS.map((kind) => {
      const d = snippetDeploy(kind, input);
      return { kind, state: d.state, line: d.verification };
    }),
  };
}
