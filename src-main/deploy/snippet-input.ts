// What a deploy snippet says about itself before any setting: which run measured the configuration,
// why it was picked, under what load, how sure, and whether the snippet was verified — run exactly as
// emitted (deploy/verification.ts) — and so which settings it carries (deploy/settings.ts).
import { loadLabel } from '../analysis/decide/group.ts';
import { fmtNum, fmtUs } from '../common/format.ts';
import { exactCpu, memLabel } from '../common/resource-labels.ts';
import type { CellLoad } from '../model/types.ts';
import { canVerify, deployedSettings, type DeploySettings, type MeasuredConfig, type SnippetKind } from './settings.ts';
import type { Verification } from './verification.ts';

export interface DeployConfig extends MeasuredConfig {
  /** The memory cap the configuration was measured under: what an unverified snippet carries. */
  memoryMb: number;
  /**
   * The answer's memory limit for it by its rule (analysis/size/sizing.ts: the peak with headroom, or the
   * smallest clean cap): where verification starts. A snippet carries it only once a cell ran it.
   */
  ruleMemoryMb?: number;
  /** Every exact Node.js version its cells ran, when they ran more than one (`node` then is the matrix's name). */
  nodeVersions?: string[];
  /** UV_THREADPOOL_SIZE as its processes read it, set explicitly where requests waited on the pool (in `env`). */
  pinnedPool?: number;
  /** Where its app started more workers than asked (the forks trap): how many, and os.cpus() in the box. */
  forkedByHost?: { seen: number; hostCpus: number };
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

function describe(c: DeployConfig): string {
  const how =
    c.mode === 'single' ? 'a single process' : c.mode === 'image' ? 'its own image' : `${c.mode} × ${c.workers}`;
  const r = c.replicas ?? 1;
  const each = r > 1 ? `${r} containers, each ` : '';
  const cap = `${exactCpu(c.cpuMillis)}, measured under a ${memLabel(c.memoryMb)} cap${r > 1 ? ' each' : ''}`;
  return `${c.app}, ${each}${how}, ${cap}`;
}

/**
 * The lines every snippet of a configuration shares (without the comment marker): the run, why, the load, how sure, the
 * CPU.
 */
export function provenanceLines(input: DeployInput): string[] {
  const p = input.provenance;
  const g = p.goodput;
  const goodput = g
    ? `goodput ${fmtNum(g.mean)} ` +
      `req/s${g.low !== null && g.high !== null ? ` (95 % CI ${fmtNum(g.low)}–${fmtNum(g.high)})` : ' (no interval)'}`
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
        'Not verifiable: its own image runs its own command, not PM2, so no cell can run this file as ' +
        'emitted; it carries only the cap the matrix measured, no restart threshold or heap size.',
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
          ? `Memory: ${limitIs} ${s.memoryMb} MB, as verified${otherTargets(kind, s.memoryMb, input)}.${rule}`
          : `Memory: ${limitIs} ${s.memoryMb} MB, the cap the matrix ran it clean at (no smaller limit passed ` +
            `verification).${rule}`,
    };
  }
  const ruleMb = c.ruleMemoryMb !== undefined && c.ruleMemoryMb !== c.memoryMb ? c.ruleMemoryMb : null;
  const what = kind === 'pm2' ? 'no max_memory_restart or heap size' : 'no other limit';
  const cmd = verifyCommandOf(input);
  // The rule's limit is said once: what it is, and that only a verified snippet carries it.
  const ruleGives =
    ruleMb === null
      ? `.${rule}`
      : ` (the answer's memory rule gives ${p.memoryRule ?? `${ruleMb} MB`}: a snippet carries it once verification ` +
        'has run it).';
  return {
    kind,
    state: v ? 'incomplete' : 'unverified',
    settings: measured,
    verification:
      cmd === null
        ? `Unverified as emitted: it carries only the ${c.memoryMb} MB cap its cells ran under, ${what}: ` +
          'nothing no cell ran.'
        : `${v ? `${v.line} ` : ''}Unverified — run \`${cmd}\` to run it exactly as emitted; until then it ` +
          `carries only the ${c.memoryMb} MB cap the matrix measured, ${what}: nothing no cell ran.`,
    memory: `Memory: ${limitIs} ${c.memoryMb} MB, the cap the matrix measured it under${ruleGives}`,
  };
}

/** "; PM2's is 160 MB: its daemon and restart threshold run in the same memory" — once, where a target differs. */
function otherTargets(kind: SnippetKind, mb: number, input: DeployInput): string {
  const kinds = input.verification?.kinds ?? {};
  const other = (Object.keys(kinds) as SnippetKind[])
    .filter((k) => k !== kind && kinds[k]?.state === 'verified' && kinds[k]!.settings!.memoryMb !== mb)
    .map((k) => {
      const why =
        k === 'pm2'
          ? 'its daemon and max_memory_restart run in the same memory'
          : kind === 'pm2'
            ? "without PM2's daemon"
            : 'as its own verification ran it';
      const name = k === 'pm2' ? 'PM2' : k === 'kubernetes' ? 'Kubernetes' : 'Compose';
      return `the ${name} snippet's is ${kinds[k]!.settings!.memoryMb} MB, ${why}`;
    });
  return other.length ? `; ${other.join('; ')}` : '';
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
