/**
 * Ready-to-use deployment snippets for one measured configuration: a PM2 ecosystem entry, a
 * Kubernetes container `resources` + `env` fragment, and a Docker Compose service. Pure text out;
 * every snippet opens with a comment saying which run measured it, whether it was verified — run
 * exactly as emitted (deploy/verification.ts) —, under what load, and how sure.
 *
 * What a snippet carries (deploy/settings.ts deployedSettings, the one derivation the verification
 * runs too): the settings of the verification cell that passed; when none passed, the last measured
 * clean setting (the cap the matrix ran the configuration clean at, with no restart threshold or heap
 * flag); unverified, only the cap the matrix measured. Never a limit, a restart threshold or a heap
 * size that no cell ran.
 */
import { loadLabel, memLabel } from '../analysis/group.ts';
import { searchConfigLabel, searchNothingToDeploy } from '../analysis/search-answer.ts';
import { answerPick, type AnswerPick } from '../analysis/sizing.ts';
import { describeSlo } from '../analysis/slo.ts';
import type { ConfigurationSummary, Recommendation, ScopeDecision, SloOutcome } from '../analysis/types.ts';
import { fmtNum, fmtUs } from '../common/format.ts';
import type { CellLoad } from '../model/types.ts';
import { exactCpu, recommendedCpu, recommendedMemoryLimit } from './resources.ts';
import {
  canVerify,
  deployedSettings,
  HEAP_SHARE,
  maxMemoryRestartMb,
  PM2_RESTART_SHARE,
  RESTART_ABOVE_RSS,
  SNIPPET_KINDS,
  type DeploySettings,
  type MeasuredConfig,
  type SnippetKind,
} from './settings.ts';
import type { Verification } from './verification.ts';

export {
  HEAP_FLAG_BELOW_MB,
  HEAP_SHARE,
  isSnippetKind,
  maxMemoryRestartMb,
  maxOldSpaceMb,
  PM2_RESTART_SHARE,
  SNIPPET_KINDS,
  type DeploySettings,
  type SnippetKind,
} from './settings.ts';

/** The environment variable carrying the worker count to the app (the Heroku / Node convention). */
export const WORKERS_ENV = 'WEB_CONCURRENCY';

export interface DeployConfig extends MeasuredConfig {
  /** The memory cap the configuration was measured under: what an unverified snippet carries. */
  memoryMb: number;
  /**
   * The answer's memory limit for it by its rule (analysis/sizing.ts: the peak with headroom, or the
   * smallest clean cap): where verification starts. A snippet carries it only once a cell ran it.
   */
  ruleMemoryMb?: number;
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
  /** The answer's memory rule for it, in words (the limit verification starts from), when it has one. */
  memoryRule?: string;
  /** How the CPU request and limit were set (deploy/resources.ts), for the recommended configuration. */
  cpuRule?: string;
}

export interface DeployInput {
  config: DeployConfig;
  provenance: DeployProvenance;
  /**
   * The stored verification of this configuration (deploy/verification.ts verificationOf); absent or null: unverified.
   */
  verification?: Verification | null;
  /**
   * The command that verifies it (default `rightsize verify RUN`); null: none can (an auto-size run's cells are its
   * search's).
   */
  verifyCommand?: string | null;
}

/** Kubernetes quantities: millicores and mebibytes (Docker's --memory 256m is 256 MiB too). */
export const k8sCpu = (millis: number): string => `${Math.round(millis)}m`;
export const k8sMemory = (mb: number): string => `${Math.round(mb)}Mi`;
/** Compose: cpus as a decimal string, memory with a binary M suffix (compose reads M as MiB). */
export const composeCpus = (millis: number): string => String(Math.round(millis) / 1000);
export const composeMemory = (mb: number): string => `${Math.round(mb)}M`;

function describe(c: DeployConfig): string {
  const how =
    c.mode === 'single' ? 'a single process' : c.mode === 'image' ? 'its own image' : `${c.mode} × ${c.workers}`;
  return `${c.app}, ${how}, ${exactCpu(c.cpuMillis)}, measured under a ${memLabel(c.memoryMb)} cap`;
}

/**
 * The lines every snippet of a configuration shares (without the comment marker): the run, why, the load, how sure, the
 * CPU.
 */
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
    ...(p.cpuRule ? [`CPU: ${p.cpuRule}.`] : []),
  ];
}

/**
 * How a snippet stands: 'verified' (a cell ran it exactly as emitted and passed), 'fallback' (none
 * passed: the matrix's clean cap), 'incomplete' (a verification stopped before any passed),
 * 'unverified' (none ran), 'unverifiable' (PM2 for an own image: its command is not PM2's).
 */
export type SnippetState = 'verified' | 'fallback' | 'incomplete' | 'unverified' | 'unverifiable';

/** What one snippet kind deploys and how it stands: the settings it carries and the sentences that say so. */
export interface SnippetDeploy {
  kind: SnippetKind;
  state: SnippetState;
  settings: DeploySettings;
  /** Its verification in one sentence: what ran and how it went, or the command that verifies it. */
  verification: string;
  /** Where its memory limit comes from. */
  memory: string;
}

/** The command that verifies a snippet's configuration, or null where none can. */
export const verifyCommandOf = (input: DeployInput): string | null =>
  input.verifyCommand === undefined ? `rightsize verify ${input.provenance.runId}` : input.verifyCommand;

/**
 * The settings a snippet of `kind` carries, and its verification in words: the passing verification
 * cell's settings, the fallback after a failed verification, or (unverified) only the cap the matrix
 * measured, with no restart threshold or heap flag.
 */
export function snippetDeploy(kind: SnippetKind, input: DeployInput): SnippetDeploy {
  const c = input.config;
  const p = input.provenance;
  const rule = p.memoryRule ? ` The answer's memory rule: ${p.memoryRule}.` : '';
  const limitIs =
    kind === 'pm2' ? "limit of the container or host it runs in (PM2's daemon included)" : 'limit = request';
  const measured = deployedSettings(kind, c, c.memoryMb, false);
  if (!canVerify(kind, c)) {
    return {
      kind,
      state: 'unverifiable',
      settings: measured,
      verification:
        'Not verifiable: its own image runs its own command, not PM2, so no cell can run this file as emitted; it carries only the cap the matrix measured, no restart threshold or heap size.',
      memory: `Memory: ${limitIs} ${c.memoryMb} MB, the cap the matrix measured it under.${rule}`,
    };
  }
  const v = input.verification?.kinds[kind];
  if (v?.settings) {
    const s = v.settings;
    return {
      kind,
      state: v.state,
      settings: s,
      verification: v.line,
      memory:
        v.state === 'verified'
          ? `Memory: ${limitIs} ${s.memoryMb} MB, as verified.${rule}`
          : `Memory: ${limitIs} ${s.memoryMb} MB, the cap the matrix ran it clean at (no smaller limit passed verification).${rule}`,
    };
  }
  const ruleMb = c.ruleMemoryMb !== undefined && c.ruleMemoryMb !== c.memoryMb ? c.ruleMemoryMb : null;
  const what = kind === 'pm2' ? 'no max_memory_restart or heap size' : 'no other limit';
  const cmd = verifyCommandOf(input);
  return {
    kind,
    state: v ? 'incomplete' : 'unverified',
    settings: measured,
    verification:
      cmd === null
        ? `Unverified as emitted: it carries only the ${c.memoryMb} MB cap its cells ran under, ${what}: nothing no cell ran.`
        : `${v ? `${v.line} ` : ''}Unverified — run \`${cmd}\` to run it exactly as emitted; until then it carries only the ${c.memoryMb} MB cap the matrix measured, ${what}: nothing no cell ran.`,
    memory: `Memory: ${limitIs} ${c.memoryMb} MB, the cap the matrix measured it under${ruleMb !== null ? ` (the answer's rule gives ${ruleMb} MB: a snippet carries it once verification has run it)` : ''}.${rule}`,
  };
}

/** The lines a snippet of `kind` opens with: the run, its verification, why, the load, how sure, CPU and memory. */
export function snippetLines(
  kind: SnippetKind,
  input: DeployInput,
  d: SnippetDeploy = snippetDeploy(kind, input),
): string[] {
  const [first, ...rest] = provenanceLines(input);
  return [first!, d.verification, ...rest, d.memory];
}

const comment = (marker: string, lines: string[]): string =>
  lines.map((l) => `${marker} ${l.replace(/\r?\n/g, ' ')}`).join('\n');
/** A YAML/JS string literal that survives any name. */
const quote = (s: string): string => JSON.stringify(s);

export function pm2Snippet(input: DeployInput): string {
  const c = input.config;
  const d = snippetDeploy('pm2', input);
  const s = d.settings;
  const image = s.mode === 'image';
  const instances = image ? 1 : s.workers;
  const share = `each process's share of the ${s.memoryMb} MB limit (limit ÷ ${instances + 1}: ${instances} instance${instances === 1 ? '' : 's'} and PM2's own daemon)`;
  const thresholds =
    s.recycleRssMb !== null
      ? [
          s.recycleRssMb > maxMemoryRestartMb(s.memoryMb, instances)
            ? `// max_memory_restart: above the resident memory a server process was measured at (× ${RESTART_ABOVE_RSS}), not ${Math.round(PM2_RESTART_SHARE * 100)} % of ${share}, which is below it: PM2 compares RSS, which counts the mapped node binary the cgroup may not be charged for.`
            : `// max_memory_restart: ${Math.round(PM2_RESTART_SHARE * 100)} % of ${share}.`,
          s.heapMb === null
            ? "// node_args: no --max-old-space-size; each process's share is large enough that V8's default heap limit stays below it."
            : `// node_args: --max-old-space-size = ${Math.round(HEAP_SHARE * 100)} % of each process's share, the rest is headroom for buffers, code and stacks.`,
        ]
      : [
          `// No max_memory_restart or node_args: ${d.state === 'fallback' ? 'none that was run passed verification' : 'no cell has run them'}.`,
        ];
  const lines = [
    comment('//', snippetLines('pm2', input, d)),
    ...thresholds,
    ...(image ? ['// Measured as its own image: adjust script to what the image runs.'] : []),
    'module.exports = {',
    '  apps: [',
    '    {',
    `      name: ${quote(c.app)},`,
    `      script: ${quote('server.js')}, // your entry point`,
    `      instances: ${instances},`,
    // Cluster exec mode for every instance count: what `pm2 start -i N`, and so a verification cell, runs.
    `      exec_mode: ${quote(image ? 'fork' : 'cluster')},`,
    ...(s.recycleRssMb === null ? [] : [`      max_memory_restart: ${quote(`${s.recycleRssMb}M`)},`]),
    ...(s.heapMb === null ? [] : [`      node_args: ${quote(`--max-old-space-size=${s.heapMb}`)},`]),
    '    },',
    '  ],',
    '};',
  ];
  return `${lines.join('\n')}\n`;
}

export function kubernetesSnippet(input: DeployInput): string {
  const d = snippetDeploy('kubernetes', input);
  const s = d.settings;
  const q = (x: string): string => quote(x);
  const lines = [
    comment('#', snippetLines('kubernetes', input, d)),
    s.cpuRequestMillis === s.cpuMillis
      ? '# Part of a container spec: requests = limits, so the pod gets exactly what was measured (Guaranteed QoS).'
      : '# Part of a container spec: the CPU request is below the limit (Burstable QoS): the scheduler reserves the request, the container may use up to the cap it was measured under; memory requests = limits.',
    'resources:',
    '  requests:',
    `    cpu: ${q(k8sCpu(s.cpuRequestMillis))}`,
    `    memory: ${q(k8sMemory(s.memoryMb))}`,
    '  limits:',
    `    cpu: ${q(k8sCpu(s.cpuMillis))}`,
    `    memory: ${q(k8sMemory(s.memoryMb))}`,
    'env:',
    `  - name: ${WORKERS_ENV}`,
    `    value: ${q(String(s.workers))}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** A Compose service name: lower case letters, digits, dash and underscore. */
const serviceName = (app: string): string =>
  app
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '') || 'app';

export function composeSnippet(input: DeployInput): string {
  const c = input.config;
  const d = snippetDeploy('compose', input);
  const s = d.settings;
  const res = (cpu: number): string[] => [
    `          cpus: ${quote(composeCpus(cpu))}`,
    `          memory: ${composeMemory(s.memoryMb)}`,
  ];
  const lines = [
    comment('#', snippetLines('compose', input, d)),
    s.cpuRequestMillis === s.cpuMillis
      ? '# Reservations = limits: the service gets exactly what was measured.'
      : '# CPU reservation = the request, CPU limit = the cap it was measured under; memory reservation = limit.',
    'services:',
    `  ${serviceName(c.app)}:`,
    '    environment:',
    `      ${WORKERS_ENV}: ${quote(String(s.workers))}`,
    '    deploy:',
    '      resources:',
    '        limits:',
    ...res(s.cpuMillis),
    '        reservations:',
    ...res(s.cpuRequestMillis),
  ];
  return `${lines.join('\n')}\n`;
}

const SNIPPET_WRITERS: Record<SnippetKind, (input: DeployInput) => string> = {
  pm2: pm2Snippet,
  kubernetes: kubernetesSnippet,
  compose: composeSnippet,
};

export function deploySnippet(kind: SnippetKind, input: DeployInput): string {
  return SNIPPET_WRITERS[kind](input);
}

const STATE_CONFIDENCE: Record<ScopeDecision['state'], string> = {
  confident: 'confident — a test separates it from every other configuration',
  equivalent: 'equivalent — the contenders are shown within the margin of the best, and this is the cheapest of them',
  undecided: 'undecided — the tests could not decide; this is the leading contender, not a decided pick',
};

/** How sure a scope's pick is, in words: its state, and what would decide it when undecided. */
export const scopeConfidence = (scope: ScopeDecision): string =>
  `${STATE_CONFIDENCE[scope.state]}${scope.state === 'undecided' && scope.decideBy.length ? ` (what would decide it: ${scope.decideBy.join('; ')})` : ''}` +
  `${scope.lowerBounds.includes(scope.knee.key) ? '; its goodput is a lower bound (the load generator or the host set the pace)' : ''}`;
/**
 * Why a scope's pick: "the knee of 1 CPU / 256 MB (hello, 20 connections): the fewest workers …"; undecided: the
 * leading contender.
 */
export const kneePick = (rec: Recommendation, scope: ScopeDecision): string =>
  scope.state === 'undecided'
    ? `the leading contender of ${scope.label} (${scope.context}), undecided against ${scope.contenders.length - 1} other${scope.contenders.length === 2 ? '' : 's'}`
    : `the knee of ${scope.label} (${scope.context}): the fewest workers that hold the throughput within ${fmtNum(rec.marginPct, rec.marginPct % 1 ? 1 : 0)} % of the best`;

const objectiveConfidence = (o: SloOutcome, c: ConfigurationSummary): string => {
  const unsure = o.checks.filter((k) => k.sure === false && k.limit > 0).map((k) => k.criterion);
  if (c.n < 2)
    return c.rps?.intervalFrom === 'batch-means'
      ? 'meets it on one repetition: its intervals come from its own seconds, blind to run-to-run variation'
      : 'meets it on a single sample: no interval';
  if (unsure.length) return `meets it on the means only: the 95 % interval crosses the ${unsure.join(' and ')} limit`;
  return 'meets it on the means, and its 95 % intervals are within the limits too';
};

/** Why the answer's configuration, and how sure, in words (for the snippets' comment). */
function pickWords(rec: Recommendation, p: AnswerPick): { pick: string; confidence: string } {
  if (p.basis === 'search') {
    const s = rec.search!;
    return {
      pick: `the cheapest configuration the auto-size search found meeting ${s.objective} (${s.cells} cells instead of the ${fmtNum(s.gridCells)} of a full grid)`,
      confidence: s.evidence
        ? `met the objective with confidence — ${s.evidence}`
        : 'met the objective with confidence (the whole 95 % interval within the limits)',
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
    return `Run ${rec.run.id} has no answer to deploy: none of the cells of the configuration its search found (${searchConfigLabel(rec.search.found)}) finished with a measurement.`;
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
  return SNIPPET_KINDS.map((kind) => ({
    kind,
    filename: snippetFilename(kind, input.provenance.runId, cellNumber),
    text: deploySnippet(kind, input),
  }));
}
