/**
 * Ready-to-use deployment snippets for one measured configuration: a PM2 ecosystem entry, a
 * Kubernetes container `resources` + `env` fragment, and a Docker Compose service. Pure text out;
 * every snippet opens with a comment saying which run measured it, under what load, and how sure.
 */
import { loadLabel, memLabel } from '../analysis/group.ts';
import { searchConfigLabel, searchNothingToDeploy } from '../analysis/search-answer.ts';
import { answerPick, type AnswerPick } from '../analysis/sizing.ts';
import { describeSlo } from '../analysis/slo.ts';
import type { ConfigurationSummary, Recommendation, ScopeDecision, SloOutcome, Verdict } from '../analysis/types.ts';
import { fmtNum, fmtUs } from '../common/format.ts';
import type { CellLoad, LaunchMode } from '../engine/types.ts';
import { exactCpu, recommendedCpu, recommendedMemoryLimit } from './resources.ts';

export const SNIPPET_KINDS = ['pm2', 'kubernetes', 'compose'] as const;
export type SnippetKind = (typeof SNIPPET_KINDS)[number];

export const isSnippetKind = (k: string): k is SnippetKind => (SNIPPET_KINDS as readonly string[]).includes(k);

/** The environment variable carrying the worker count to the app (the Heroku / Node convention). */
export const WORKERS_ENV = 'WEB_CONCURRENCY';
/** PM2 restarts a process above this share of its slice of the memory cap: before the kernel's OOM killer does. */
export const PM2_RESTART_SHARE = 0.9;
/** V8's old space gets this share of a process's slice of the cap; the rest is headroom for buffers, code, stacks and the new space. */
export const HEAP_SHARE = 0.75;
/** At or above this, V8's own default heap limit is already below the slice, so the flag changes nothing. */
export const HEAP_FLAG_BELOW_MB = 2048;

export interface DeployConfig {
  app: string;
  mode: LaunchMode;
  workers: number;
  /** The CPU limit: the cap the configuration was measured under. */
  cpuMillis: number;
  /** The CPU request (deploy/resources.ts), never above cpuMillis; absent (a measured cell): the limit. */
  cpuRequestMillis?: number;
  /** The memory limit, and request. */
  memoryMb: number;
}

export interface DeployProvenance {
  runId: number;
  runName: string;
  load: CellLoad;
  /** Goodput mean (req/s) and its 95 % interval when known. */
  goodput: { mean: number; low: number | null; high: number | null } | null;
  p99Us: number | null;
  /** "clear", "not distinguishable from 3 others"… in words. */
  confidence: string;
  /** Why this configuration: "the knee: the fewest workers that hold the throughput". */
  pick: string;
  /** How the memory limit was set when it is not simply the cap the configuration was measured under. */
  memoryRule?: string;
  /** How the CPU request and limit were set (deploy/resources.ts), for the recommended configuration. */
  cpuRule?: string;
}

export interface DeployInput {
  config: DeployConfig;
  provenance: DeployProvenance;
}

/** Node processes the configuration runs (a single process and an own image count as one). */
const processes = (c: DeployConfig): number => (c.mode === 'cluster' || c.mode === 'pm2' ? Math.max(1, c.workers) : 1);
/** The worker count the app is told: an own image reads it from its workers variable (e.g. WEB_CONCURRENCY). */
const workerSetting = (c: DeployConfig): number => (c.mode === 'single' ? 1 : Math.max(1, c.workers));
/** The CPU request: never above the limit (Kubernetes refuses that). */
const cpuRequest = (c: DeployConfig): number => Math.min(c.cpuRequestMillis ?? c.cpuMillis, c.cpuMillis);
/** Each process's slice of the container's memory cap, in MB. */
const sliceMb = (c: DeployConfig): number => c.memoryMb / processes(c);

/** PM2 `max_memory_restart` in MB: PM2_RESTART_SHARE of the per-process slice (PM2 checks each process alone). */
export const maxMemoryRestartMb = (c: DeployConfig): number => Math.max(1, Math.floor(sliceMb(c) * PM2_RESTART_SHARE));
/** `--max-old-space-size` in MB, or null where V8's default is already smaller than the slice. */
export function maxOldSpaceMb(c: DeployConfig): number | null {
  const heap = Math.floor(sliceMb(c) * HEAP_SHARE);
  return heap < HEAP_FLAG_BELOW_MB ? Math.max(16, heap) : null;
}

/** Kubernetes quantities: millicores and mebibytes (Docker's --memory 256m is 256 MiB too). */
export const k8sCpu = (millis: number): string => `${Math.round(millis)}m`;
export const k8sMemory = (mb: number): string => `${Math.round(mb)}Mi`;
/** Compose: cpus as a decimal string, memory with a binary M suffix (compose reads M as MiB). */
export const composeCpus = (millis: number): string => String(Math.round(millis) / 1000);
export const composeMemory = (mb: number): string => `${Math.round(mb)}M`;

function describe(c: DeployConfig): string {
  const how = c.mode === 'single' ? 'a single process' : c.mode === 'image' ? 'its own image' : `${c.mode} × ${c.workers}`;
  return `${c.app}, ${how}, ${exactCpu(c.cpuMillis)}, ${memLabel(c.memoryMb)}`;
}

/** The provenance lines every snippet opens with (without the comment marker). */
export function provenanceLines(input: DeployInput): string[] {
  const p = input.provenance;
  const g = p.goodput;
  const goodput = g
    ? `goodput ${fmtNum(g.mean)} req/s${g.low !== null && g.high !== null ? ` (95 % CI ${fmtNum(g.low)}–${fmtNum(g.high)})` : ' (no interval)'}`
    : 'goodput unknown';
  const p99 = p.p99Us === null ? 'p99 unknown' : `p99 ${fmtUs(p.p99Us)}`;
  return [
    `Rightsize run ${p.runId} "${p.runName}": ${describe(input.config)}`,
    `Picked as ${p.pick}.`,
    `Measured under ${loadLabel(p.load)}: ${goodput}, ${p99}.`,
    `Confidence: ${p.confidence}.`,
    ...(p.memoryRule ? [`Memory: ${p.memoryRule}.`] : []),
    ...(p.cpuRule ? [`CPU: ${p.cpuRule}.`] : []),
  ];
}

const comment = (marker: string, lines: string[]): string => lines.map((l) => `${marker} ${l.replace(/\r?\n/g, ' ')}`).join('\n');
/** A YAML/JS string literal that survives any name. */
const quote = (s: string): string => JSON.stringify(s);

export function pm2Snippet(input: DeployInput): string {
  const c = input.config;
  const cluster = c.mode === 'cluster' || c.mode === 'pm2';
  const heap = maxOldSpaceMb(c);
  const lines = [
    comment('//', provenanceLines(input)),
    `// max_memory_restart: ${Math.round(PM2_RESTART_SHARE * 100)} % of each process's share of the ${c.memoryMb} MB memory limit (limit ÷ ${processes(c)}).`,
    heap === null
      ? `// node_args: no --max-old-space-size; each process's share is large enough that V8's default heap limit stays below it.`
      : `// node_args: --max-old-space-size = ${Math.round(HEAP_SHARE * 100)} % of each process's share, the rest is headroom for buffers, code and stacks.`,
    ...(c.mode === 'image' ? ['// Measured as its own image: adjust script to what the image runs.'] : []),
    'module.exports = {',
    '  apps: [',
    '    {',
    `      name: ${quote(c.app)},`,
    `      script: ${quote('server.js')}, // your entry point`,
    `      instances: ${cluster ? c.workers : 1},`,
    `      exec_mode: ${quote(cluster ? 'cluster' : 'fork')},`,
    `      max_memory_restart: ${quote(`${maxMemoryRestartMb(c)}M`)},`,
    ...(heap === null ? [] : [`      node_args: ${quote(`--max-old-space-size=${heap}`)},`]),
    '    },',
    '  ],',
    '};',
  ];
  return `${lines.join('\n')}\n`;
}

export function kubernetesSnippet(input: DeployInput): string {
  const c = input.config;
  const q = (s: string): string => quote(s);
  const request = cpuRequest(c);
  const lines = [
    comment('#', provenanceLines(input)),
    request === c.cpuMillis
      ? '# Part of a container spec: requests = limits, so the pod gets exactly what was measured (Guaranteed QoS).'
      : '# Part of a container spec: the CPU request is below the limit (Burstable QoS): the scheduler reserves the request, the container may use up to the cap it was measured under; memory requests = limits.',
    'resources:',
    '  requests:',
    `    cpu: ${q(k8sCpu(request))}`,
    `    memory: ${q(k8sMemory(c.memoryMb))}`,
    '  limits:',
    `    cpu: ${q(k8sCpu(c.cpuMillis))}`,
    `    memory: ${q(k8sMemory(c.memoryMb))}`,
    'env:',
    `  - name: ${WORKERS_ENV}`,
    `    value: ${q(String(workerSetting(c)))}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** A Compose service name: lower case letters, digits, dash and underscore. */
const serviceName = (app: string): string => app.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^[-_]+|[-_]+$/g, '') || 'app';

export function composeSnippet(input: DeployInput): string {
  const c = input.config;
  const request = cpuRequest(c);
  const res = (cpu: number): string[] => [`          cpus: ${quote(composeCpus(cpu))}`, `          memory: ${composeMemory(c.memoryMb)}`];
  const lines = [
    comment('#', provenanceLines(input)),
    request === c.cpuMillis
      ? '# Reservations = limits: the service gets exactly what was measured.'
      : '# CPU reservation = the request, CPU limit = the cap it was measured under; memory reservation = limit.',
    'services:',
    `  ${serviceName(c.app)}:`,
    '    environment:',
    `      ${WORKERS_ENV}: ${quote(String(workerSetting(c)))}`,
    '    deploy:',
    '      resources:',
    '        limits:',
    ...res(c.cpuMillis),
    '        reservations:',
    ...res(request),
  ];
  return `${lines.join('\n')}\n`;
}

export function deploySnippet(kind: SnippetKind, input: DeployInput): string {
  return kind === 'pm2' ? pm2Snippet(input) : kind === 'kubernetes' ? kubernetesSnippet(input) : composeSnippet(input);
}

const VERDICT_WORDS: Record<Verdict, string> = {
  clear: 'clear — the best is significantly ahead of every other candidate',
  'not-distinguishable': 'not distinguishable — the test cannot separate the best from at least one other',
  'single-sample': 'single sample — only means could be compared for some candidates',
  'only-one': 'only one candidate — nothing to compare with',
  bottlenecked: 'bottlenecked — the load generator or the host set the pace, the numbers are lower bounds',
};
const KNEE_WORDS: Record<ScopeDecision['kneeEvidence'], string> = {
  'shown-within': 'the knee is shown within the margin of the best',
  'not-below': 'the knee is not significantly below the best, but not shown within the margin either (weak)',
  means: 'the knee rests on means only (no interval)',
};

/** How sure a scope's knee is, in words: the verdict on goodput and how the knee stands. */
export const scopeConfidence = (scope: ScopeDecision): string => `${VERDICT_WORDS[scope.rpsVerdict]}; ${KNEE_WORDS[scope.kneeEvidence]}`;
/** Why a scope's knee: "the knee of 1 CPU / 256 MB (hello, 20 connections): the fewest workers …". */
export const kneePick = (rec: Recommendation, scope: ScopeDecision): string =>
  `the knee of ${scope.label} (${scope.context}): the fewest workers that hold the throughput within ${fmtNum(rec.marginPct, rec.marginPct % 1 ? 1 : 0)} % of the best`;

const objectiveConfidence = (o: SloOutcome, c: ConfigurationSummary): string => {
  const unsure = o.checks.filter((k) => k.sure === false && k.limit > 0).map((k) => k.criterion);
  if (c.n < 2) return c.rps?.intervalFrom === 'batch-means' ? 'meets it on one repetition: its intervals come from its own seconds, blind to run-to-run variation' : 'meets it on a single sample: no interval';
  if (unsure.length) return `meets it on the means only: the 95 % interval crosses the ${unsure.join(' and ')} limit`;
  return 'meets it on the means, and its 95 % intervals are within the limits too';
};

/** Why the answer's configuration, and how sure, in words (for the snippets' comment). */
function pickWords(rec: Recommendation, p: AnswerPick): { pick: string; confidence: string } {
  if (p.basis === 'search') {
    const s = rec.search!;
    return {
      pick: `the cheapest configuration the auto-size search found meeting ${s.objective} (${s.cells} cells instead of the ${fmtNum(s.gridCells)} of a full grid)`,
      confidence: s.evidence ? `met the objective with confidence — ${s.evidence}` : 'met the objective with confidence (the whole 95 % interval within the limits)',
    };
  }
  if (p.basis === 'slo') {
    const o = p.outcome!;
    return {
      pick: `the cheapest configuration meeting ${describeSlo(rec.slo!)} (${o.meeting} of ${o.considered} configurations meet it)`,
      confidence: objectiveConfidence(o, p.configuration),
    };
  }
  const scope = p.scope!;
  const closest = p.outcome?.closest;
  return {
    pick: p.sloUnmet
      ? `${kneePick(rec, scope)} — no configuration measured meets ${describeSlo(rec.slo!)}${closest ? ` (closest: ${closest.label})` : ''}, so this is not an objective fit`
      : kneePick(rec, scope),
    confidence: scopeConfidence(scope),
  };
}

/**
 * The answer's recommended configuration (analysis/sizing.ts answerPick: an auto-size run's found
 * configuration; else the cheapest meeting the objective; else the first pair's knee), with the
 * resources of deploy/resources.ts. null when the answer has nothing to deploy (nothingToDeploy says why).
 */
export function recommendedDeploy(rec: Recommendation): DeployInput | null {
  const p = answerPick(rec);
  if (!p) return null;
  const k = p.configuration;
  const ci = k.rps?.ci ?? null;
  const memory = recommendedMemoryLimit(rec, k);
  const cpu = recommendedCpu(rec, k);
  const { pick, confidence } = pickWords(rec, p);
  return {
    config: { app: k.app, mode: k.mode, workers: k.workers, cpuMillis: cpu.limitMillis, cpuRequestMillis: cpu.requestMillis, memoryMb: memory.mb },
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
  if (rec.search?.found) return `Run ${rec.run.id} has no answer to deploy: none of the cells of the configuration its search found (${searchConfigLabel(rec.search.found)}) finished with a measurement.`;
  return `Run ${rec.run.id} has no answer to deploy: no CPU / memory pair had a configuration that qualified.`;
}

/** A snippet as a file: what the UI shows, copies and saves. */
export interface SnippetFile {
  kind: SnippetKind;
  filename: string;
  text: string;
}

/** File names that say what they are and stay apart per run and cell (PM2 reads `*.config.js` as an ecosystem file). */
export function snippetFilename(kind: SnippetKind, runId: number, cellNumber: number | null): string {
  const base = `rightsize-run-${runId}${cellNumber === null ? '' : `-cell-${cellNumber}`}`;
  return kind === 'pm2' ? `${base}-ecosystem.config.js` : `${base}-${kind}.yaml`;
}

/** The three snippets of one configuration. `cellNumber`: the cell's # in its run, or null for the recommendation. */
export function snippetFiles(input: DeployInput, cellNumber: number | null): SnippetFile[] {
  return SNIPPET_KINDS.map((kind) => ({ kind, filename: snippetFilename(kind, input.provenance.runId, cellNumber), text: deploySnippet(kind, input) }));
}
