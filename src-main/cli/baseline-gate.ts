// `run --baseline RUN|NAME [--threshold PCT]` and `--save-baseline NAME`: checked before anything
// starts (a bad option changes nothing), then after the run the verdicts printed, stored with the
// run (the report works them out again) and turned into the exit code; the run saved as a baseline.
import type { BaselineComparison } from '../analysis/compare/baseline.ts';
import { DEFAULT_THRESHOLD_PCT, thresholdProblem } from '../analysis/compare/baseline.ts';
import type { RunDetail } from '../model/stored.ts';
import type { Store } from '../store/index.ts';
import { baselineNameProblem, comparisonOf, resolveBaseline, type RunBaselineSpec } from '../export/baseline-of.ts';
import { CliError, EXIT } from './exit-codes.ts';
import { baselineText } from './baseline-text.ts';

export interface BaselineOptions {
  /** --baseline RUN|NAME */
  baseline?: string;
  /** --save-baseline NAME */
  saveBaseline?: string;
  /** --threshold PCT (noise threshold of the verdicts, default 5). */
  threshold?: string;
}

/** --threshold as a percentage; a usage error naming the option otherwise. */
export function thresholdOption(text: string | undefined): number {
  if (text === undefined) return DEFAULT_THRESHOLD_PCT;
  const pct = Number(text.trim().replace(/%$/, ''));
  const problem = text.trim() === '' ? 'it is empty' : thresholdProblem(pct);
  if (problem)
    throw new CliError(`--threshold should be a percentage above 0 and below 100, e.g. 5; got "${text}".`, EXIT.usage);
  return pct;
}

/** Checks every baseline option before the run: the baseline to compare with, or null when none was asked for. */
export function checkBaselineOptions(store: Store, o: BaselineOptions): RunBaselineSpec | null {
  const thresholdPct = thresholdOption(o.threshold);
  if (o.threshold !== undefined && o.baseline === undefined)
    throw new CliError('--threshold applies to --baseline RUN|NAME: give a baseline too.', EXIT.usage);
  if (o.saveBaseline !== undefined) {
    const problem = baselineNameProblem(o.saveBaseline);
    if (problem) throw new CliError(`--save-baseline: ${problem}.`, EXIT.usage);
  }
  if (o.baseline === undefined) return null;
  const resolved = resolveBaseline(store, o.baseline, thresholdPct);
  if (!resolved.ok) throw new CliError(`--baseline: ${resolved.message}.`, EXIT.usage);
  return resolved.spec;
}

export interface GateOutcome {
  comparison: BaselineComparison | null;
  /** Said when the comparison could not be made (a baseline run deleted meanwhile). */
  problem: string | null;
  /** A line about --save-baseline, or null. */
  saved: string | null;
}

/**
 * After the run: the comparison (stored with the run) and the saved baseline. A run that did not
 * complete is never saved as a baseline: its numbers are partial.
 */
export function afterRun(store: Store, run: RunDetail, spec: RunBaselineSpec | null, o: BaselineOptions): GateOutcome {
  let comparison: BaselineComparison | null = null;
  let problem: string | null = null;
  if (spec) {
    const r = comparisonOf(store, run.id, spec);
    if (r.ok) {
      comparison = r.comparison;
      store.baselines.setSpec(run.id, spec);
    } else problem = r.message;
  }
  let saved: string | null = null;
  if (o.saveBaseline !== undefined) {
    const apps = [...new Set(run.cells.map((c) => c.config.app))];
    if (run.status !== 'completed' || apps.length === 0) {
      const why = run.status === 'completed' ? 'measured nothing' : `is ${run.status}`;
      saved = `Not saved as baseline "${o.saveBaseline}": the run ${why}.`;
    } else {
      store.baselines.save(o.saveBaseline, apps, run.id);
      saved = `Saved run ${run.id} as baseline "${o.saveBaseline}" for ${apps.join(', ')}.`;
    }
  }
  return { comparison, problem, saved };
}

/** The text printed after the answer. */
export function gateText(g: GateOutcome): string {
  const out: string[] = [];
  if (g.comparison) out.push(baselineText(g.comparison));
  if (g.problem) out.push(`Baseline: ${g.problem}; nothing compared.`);
  if (g.saved) out.push(g.saved);
  return out.length ? `\n${out.join('\n\n')}\n` : '';
}
