// The configuration the answer deploys, with why it was picked and how sure, in the words the
// snippets' opening comment carries; or why there is nothing to deploy.
import { searchNothingToDeploy } from '../analysis/search-answer.ts';
import { searchConfigLabel } from '../analysis/names.ts';
import { answerPick, type AnswerPick } from '../analysis/size/sizing.ts';
import { describeSlo } from '../analysis/decide/slo.ts';
import type { ConfigurationSummary, Recommendation, ScopeDecision, SloOutcome } from '../analysis/types.ts';
import { whoSetThePace } from '../common/bottleneck.ts';
import { fmtNum } from '../common/format.ts';
import { recommendedCpu, recommendedMemoryLimit } from './resources.ts';
import { runtimeOf } from './settings.ts';
import type { DeployConfig, DeployInput } from './snippet-input.ts';
import type { Verification } from './verification.ts';
import type { HeapFitBasis } from '../common/heap-fit.ts';

const STATE_CONFIDENCE: Record<ScopeDecision['state'], string> = {
  confident: 'confident — a test separates it from every other configuration',
  equivalent: 'equivalent — the contenders are shown within the margin of the best, and this is the cheapest of them',
  undecided: 'undecided — the tests could not decide; this is the leading contender, not a decided pick',
};

/** How sure a scope's pick is, in words: its state, and what would decide it when undecided. */
export function scopeConfidence(scope: ScopeDecision): string {
  const decide =
    scope.state === 'undecided' && scope.decideBy.length ? ` (what would decide it: ${scope.decideBy.join('; ')})` : '';
  const bound = scope.lowerBounds.includes(scope.knee.key)
    ? `; its goodput is a lower bound (${whoSetThePace([scope.knee])})`
    : '';
  return `${STATE_CONFIDENCE[scope.state]}${decide}${bound}`;
}

/**
 * Why a scope's pick: "the knee of 1 CPU / 256 MB (hello, 20 connections): the fewest workers …"; undecided: the
 * leading contender.
 */
export const kneePick = (rec: Recommendation, scope: ScopeDecision): string =>
  (scope.pairs ?? 1) > 1
    ? acrossPairsPick(rec, scope)
    : scope.state === 'undecided'
      ? `the leading contender of ${scope.label} (${scope.context}), undecided against ` +
        `${scope.contenders.length - 1} other${scope.contenders.length === 2 ? '' : 's'}`
      : `the knee of ${scope.label} (${scope.context}): the fewest workers that hold the throughput within ` +
        `${fmtNum(rec.marginPct, rec.marginPct % 1 ? 1 : 0)} % of the best`;

/** Why a pick decided across CPU / memory pairs: on cost per million requests, over every configuration. */
function acrossPairsPick(rec: Recommendation, scope: ScopeDecision): string {
  const of = `the ${scope.candidates.length} configurations measured on ${scope.label} (${scope.context})`;
  const m = fmtNum(rec.marginPct, rec.marginPct % 1 ? 1 : 0);
  const others = scope.contenders.length - 1;
  if (scope.state === 'undecided')
    return (
      `the leading contender on cost per million requests of ${of}, undecided against ${others} ` +
      `other${others === 1 ? '' : 's'}`
    );
  return scope.state === 'equivalent'
    ? `the cheapest by the one order of cost of those within ${m} % of the lowest cost per million requests of ${of}`
    : `the lowest cost per million requests of ${of}`;
}

const objectiveConfidence = (o: SloOutcome, c: ConfigurationSummary): string => {
  const unsure = o.checks.filter((k) => k.sure === false && k.limit > 0).map((k) => k.criterion);
  if (c.n < 2 || !c.rps?.ci)
    return c.rps?.intervalFrom === 'batch-means'
      ? 'meets it on one repetition: its intervals come from its own seconds, blind to run-to-run variation'
      : c.n > 1
        ? `meets it on the means of ${c.n} repetitions, too few to bound: no interval`
        : 'meets it on a single sample: no interval';
  if (unsure.length) return `meets it on the means only: the 95 % interval crosses the ${unsure.join(' and ')} limit`;
  return 'meets it on the means, and its 95 % intervals are within the limits too';
};

/** Why the answer's configuration, and how sure, in words (for the snippets' comment). */
function pickWords(rec: Recommendation, p: AnswerPick): { pick: string; confidence: string } {
  if (p.basis === 'search') {
    const s = rec.search!;
    return {
      pick:
        `the cheapest configuration the auto-size search found meeting ${s.objective} (${s.cells} cells ` +
        `instead of the ${fmtNum(s.gridCells)} of a full grid)`,
      confidence: s.evidence
        ? `met the objective with confidence — ${s.evidence}`
        : 'met the objective with confidence (the whole 95 % interval within the limits)',
    };
  }
  if (p.basis === 'slo') {
    const o = p.outcome!;
    return {
      pick:
        `the cheapest configuration meeting ${describeSlo(rec.slo!)} (${o.meeting} of ${o.considered} ` +
        'configurations meet it)',
      confidence: objectiveConfidence(o, p.configuration),
    };
  }
  const scope = p.scope!;
  const closest = p.outcome?.closest;
  return {
    pick: p.sloUnmet
      ? `${kneePick(rec, scope)} — no configuration measured meets ` +
        `${describeSlo(rec.slo!)}${closest ? ` (closest: ${closest.label})` : ''}, so this is not an objective fit`
      : kneePick(rec, scope),
    confidence: scopeConfidence(scope),
  };
}

/**
 * What a configuration runs besides caps and workers, as its snippets deploy it: its replicas, its flags, and the
 * Node.js version its cells ran — the exact one where they all ran one, else the matrix's name with every version.
 */
export function deployRuntime(
  k: Pick<ConfigurationSummary, 'key' | 'replicas' | 'node' | 'nodeFlags' | 'envSet' | 'nodeVersions'>,
  rec: Pick<Recommendation, 'trapFindings' | 'traps' | 'runtime'>,
): Pick<
  DeployConfig,
  'replicas' | 'node' | 'nodeFlags' | 'env' | 'nodeVersions' | 'heapFit' | 'pinnedPool' | 'forkedByHost'
> {
  const exact = k.nodeVersions ?? [];
  const node = exact.length === 1 ? exact[0] : k.node;
  const heapFit = heapFitOf(rec, k.key);
  const forks = rec.trapFindings?.find((x) => x.key === k.key && x.kind === 'forks-by-host');
  const forked = forks?.kind === 'forks-by-host' && forks.seen > forks.asked ? forks : undefined;
  const pool = pinnedPoolOf(rec, k);
  const env = pool === undefined ? k.envSet : { ...k.envSet, UV_THREADPOOL_SIZE: String(pool) };
  return {
    ...runtimeOf({ replicas: k.replicas, node, nodeFlags: k.nodeFlags, env }),
    ...(exact.length > 1 ? { nodeVersions: [...exact] } : {}),
    ...(heapFit ? { heapFit } : {}),
    ...(pool !== undefined ? { pinnedPool: pool } : {}),
    ...(forked ? { forkedByHost: { seen: forked.seen, hostCpus: forked.hostCpus } } : {}),
  };
}

/**
 * Where requests waited on the libuv pool (the threadpool trap) and the cells left its size to libuv: the size their
 * processes read, which the snippets then set explicitly (the cells ran exactly that). Absent otherwise.
 */
export function pinnedPoolOf(
  rec: Pick<Recommendation, 'traps' | 'runtime'>,
  k: Pick<ConfigurationSummary, 'key' | 'envSet'>,
): number | undefined {
  if (k.envSet?.UV_THREADPOOL_SIZE !== undefined) return undefined;
  if (!rec.traps?.some((t) => t.kind === 'threadpool' && t.key === k.key)) return undefined;
  return rec.runtime?.find((r) => r.key === k.key)?.server?.threadpool;
}

/** The heap trap's basis for a configuration (analysis/decide/traps.ts), read, never re-decided; absent: none. */
export function heapFitOf(rec: Pick<Recommendation, 'trapFindings'>, key: string): HeapFitBasis | undefined {
  const f = rec.trapFindings?.find((x) => x.key === key && x.kind === 'heap-above-cap');
  return f?.kind === 'heap-above-cap' ? { otherMb: f.otherMb, processes: f.processes } : undefined;
}

/**
 * The answer's recommended configuration (analysis/size/sizing.ts answerPick: an auto-size run's found
 * configuration; else the cheapest meeting the objective; else the first pair's knee), with the
 * resources of deploy/resources.ts. null when the answer has nothing to deploy (nothingToDeploy says why).
 */
export function recommendedDeploy(rec: Recommendation, verification?: Verification | null): DeployInput | null {
  const p = answerPick(rec);
  if (!p) return null;
  const k = p.configuration;
  const ci = k.rps?.ci ?? null;
  const memory = recommendedMemoryLimit(rec, k);
  const cpu = recommendedCpu(rec, k);
  const { pick, confidence } = pickWords(rec, p);
  return {
    ...(verification && verification.key === k.key ? { verification } : {}),
    // An auto-size run's found configuration ran at the memory it deploys; `rightsize verify` runs on matrix runs.
    ...(rec.search ? { verifyCommand: null } : {}),
    config: {
      app: k.app,
      mode: k.mode,
      workers: k.workers,
      cpuMillis: cpu.limitMillis,
      cpuRequestMillis: cpu.requestMillis,
      memoryMb: k.memoryMb,
      ruleMemoryMb: memory.mb,
      ...deployRuntime(k, rec),
    },
    provenance: {
      runId: rec.run.id,
      runName: rec.run.name,
      load: k.load,
      goodput: k.rps ? { mean: k.rps.mean, low: ci ? ci.low : null, high: ci ? ci.high : null } : null,
      p99Us: k.p99Us ? k.p99Us.mean : null,
      confidence,
      pick,
      ...(memory.rule ? { memoryRule: memory.rule } : {}),
      cpuRule: cpu.rule,
    },
  };
}

/** Why the answer has nothing to deploy, in words (report --emit, the deploy.snippets call, the HTML report). */
export function nothingToDeploy(rec: Recommendation): string {
  const search = rec.search ? searchNothingToDeploy(rec.run.id, rec.search) : null;
  if (search) return search;
  if (rec.search?.found)
    return (
      `Run ${rec.run.id} has no answer to deploy: none of the cells of the configuration its search found ` +
      `(${searchConfigLabel(rec.search.found)}) finished with a measurement.`
    );
  return `Run ${rec.run.id} has no answer to deploy: no CPU / memory pair had a configuration that qualified.`;
}
