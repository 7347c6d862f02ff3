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
import { k8sCpu, k8sMemory } from '../common/k8s-quantity.ts';
import { snippetDeploy, snippetLines, type DeployInput } from './snippet-input.ts';
import {
  HEAP_SHARE,
  maxMemoryRestartMb,
  PM2_RESTART_SHARE,
  RESTART_ABOVE_RSS,
  SNIPPET_KINDS,
  type SnippetKind,
} from './settings.ts';

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
export { kneePick, nothingToDeploy, recommendedDeploy, scopeConfidence } from './recommended-deploy.ts';
export {
  provenanceLines,
  snippetDeploy,
  snippetLines,
  verifyCommandOf,
  type DeployConfig,
  type DeployInput,
  type DeployProvenance,
  type SnippetDeploy,
  type SnippetState,
} from './snippet-input.ts';

/** The environment variable carrying the worker count to the app (the Heroku / Node convention). */
export const WORKERS_ENV = 'WEB_CONCURRENCY';

/** Compose: cpus as a decimal string, memory with a binary M suffix (compose reads M as MiB). */
export const composeCpus = (millis: number): string => String(Math.round(millis) / 1000);
export const composeMemory = (mb: number): string => `${Math.round(mb)}M`;
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
  const share =
    `each process's share of the ${s.memoryMb} MB limit (limit ÷ ${instances + 1}: ${instances} ` +
    `instance${instances === 1 ? '' : 's'} and PM2's own daemon)`;
  const thresholds =
    s.recycleRssMb !== null
      ? [
          s.recycleRssMb > maxMemoryRestartMb(s.memoryMb, instances)
            ? '// max_memory_restart: above the resident memory a server process was measured at (× ' +
              `${RESTART_ABOVE_RSS}), not ${Math.round(PM2_RESTART_SHARE * 100)} % of ${share}, which is below ` +
              'it: PM2 compares RSS, which counts the mapped node binary the cgroup may not be charged for.'
            : `// max_memory_restart: ${Math.round(PM2_RESTART_SHARE * 100)} % of ${share}.`,
          s.heapMb === null
            ? "// node_args: no --max-old-space-size; each process's share is large enough that V8's default " +
              'heap limit stays below it.'
            : `// node_args: --max-old-space-size = ${Math.round(HEAP_SHARE * 100)} % of each process's ` +
              'share, the rest is headroom for buffers, code and stacks.',
        ]
      : [
          '// No max_memory_restart or node_args: ' +
            `${d.state === 'fallback' ? 'none that was run passed verification' : 'no cell has run them'}.`,
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
      : '# Part of a container spec: the CPU request is below the limit (Burstable QoS): the scheduler ' +
        'reserves the request, the container may use up to the cap it was measured under; memory requests = limits.',
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
