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
import {
  connectionsLine,
  containerNodeOptions,
  envEntries,
  flagsLine,
  heapLine,
  nodeLine,
  placedFlags,
  poolLine,
  replicasLine,
  workersLine,
} from './runtime-lines.ts';
import { snippetDeploy, snippetLines, type DeployInput, type SnippetDeploy } from './snippet-input.ts';
import {
  HEAP_SHARE,
  maxMemoryRestartMb,
  PM2_RESTART_SHARE,
  RESTART_ABOVE_RSS,
  RESTART_STEP_MB,
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
export {
  heapFitOf,
  kneePick,
  nothingToDeploy,
  pinnedPoolOf,
  recommendedDeploy,
  scopeConfidence,
} from './recommended-deploy.ts';
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

/** The runtime lines a snippet's opening comment adds: replicas, Node.js, flags (each only where the cells had it). */
function runtimeComment(
  marker: string,
  input: DeployInput,
  d: SnippetDeploy,
  what: string,
  optionsWhere: string,
): string[] {
  const s = d.settings;
  const lines = [
    replicasLine(s, what),
    nodeLine(s, input.config.nodeVersions),
    flagsLine(s, optionsWhere),
    connectionsLine(s),
    ...(d.kind === 'pm2' ? [] : [heapLine(s, input.config.heapFit)]),
    poolLine(input.config.pinnedPool),
    workersLine(s, input.config.forkedByHost),
  ];
  return lines.filter((l): l is string => l !== null).map((l) => `${marker} ${l}`);
}

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
              `${RESTART_ABOVE_RSS}, up to a multiple of ${RESTART_STEP_MB} MB), not ` +
              `${Math.round(PM2_RESTART_SHARE * 100)} % of ${share}, which is below ` +
              'it: PM2 compares RSS, which counts the mapped node binary the cgroup may not be charged for.'
            : `// max_memory_restart: ${Math.round(PM2_RESTART_SHARE * 100)} % of ${share}.`,
          s.heapMb === null
            ? "// node_args: no --max-old-space-size; each process's share is large enough that V8's default " +
              'heap limit stays below it.'
            : `// node_args: --max-old-space-size = ${Math.round(HEAP_SHARE * 100)} % of each process's ` +
              'share, the rest is headroom for buffers, code and stacks.',
        ]
      : [
          `// No max_memory_restart or ${s.nodeFlags?.length ? 'heap flag' : 'node_args'}: ` +
            `${d.state === 'fallback' ? 'none that was run passed verification' : 'no cell has run them'}.`,
        ];
  const { nodeOptions, argv } = placedFlags(s);
  const nodeArgs = [...argv, ...(s.heapMb === null ? [] : [`--max-old-space-size=${s.heapMb}`])];
  const lines = [
    comment('//', snippetLines('pm2', input, d)),
    ...runtimeComment('//', input, d, 'run this many containers, each running PM2 with this file', 'env below'),
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
    ...(nodeArgs.length ? [`      node_args: ${quote(nodeArgs.join(' '))},`] : []),
    ...(nodeOptions || envEntries(s).length
      ? [
          `      env: { ${[...(nodeOptions ? [['NODE_OPTIONS', nodeOptions]] : []), ...envEntries(s)]
            .map(([k, v]) => `${k}: ${quote(v!)}`)
            .join(', ')} },`,
        ]
      : []),
    '    },',
    '  ],',
    '};',
  ];
  return `${lines.join('\n')}\n`;
}

/** A Kubernetes container name (a DNS label): lower case letters, digits and dashes, at most 63. */
const containerName = (app: string): string =>
  app
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '') || 'app';

export function kubernetesSnippet(input: DeployInput): string {
  const d = snippetDeploy('kubernetes', input);
  const s = d.settings;
  const q = (x: string): string => quote(x);
  const nodeOptions = containerNodeOptions(s);
  const container = [
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
    ...(nodeOptions ? ['  - name: NODE_OPTIONS', `    value: ${q(nodeOptions)}`] : []),
    ...envEntries(s).flatMap(([k, v]) => [`  - name: ${k}`, `    value: ${q(v)}`]),
  ];
  const qos =
    s.cpuRequestMillis === s.cpuMillis
      ? 'requests = limits, so each pod gets exactly what was measured (Guaranteed QoS).'
      : 'the CPU request is below the limit (Burstable QoS): the scheduler reserves the request, the container ' +
        'may use up to the cap it was measured under; memory requests = limits.';
  // Several replicas: the Deployment's spec, so the replica count travels with the container it measured.
  const body = s.replicas
    ? [
        `# Part of a Deployment's spec: ${s.replicas} replicas of this container; ${qos}`,
        `replicas: ${s.replicas}`,
        'template:',
        '  spec:',
        '    containers:',
        `      - name: ${q(containerName(input.config.app))}`,
        ...container.map((l) => `        ${l}`),
      ]
    : [`# Part of a container spec: ${qos}`, ...container];
  const lines = [
    comment('#', snippetLines('kubernetes', input, d)),
    ...runtimeComment('#', input, d, 'the Deployment runs this many pods', 'env'),
    ...body,
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
  const nodeOptions = containerNodeOptions(s);
  const lines = [
    comment('#', snippetLines('compose', input, d)),
    ...runtimeComment('#', input, d, 'deploy.replicas runs this many containers of the service', 'environment'),
    s.cpuRequestMillis === s.cpuMillis
      ? '# Reservations = limits: the service gets exactly what was measured.'
      : '# CPU reservation = the request, CPU limit = the cap it was measured under; memory reservation = limit.',
    'services:',
    `  ${serviceName(c.app)}:`,
    '    environment:',
    `      ${WORKERS_ENV}: ${quote(String(s.workers))}`,
    ...(nodeOptions ? [`      NODE_OPTIONS: ${quote(nodeOptions)}`] : []),
    ...envEntries(s).map(([k, v]) => `      ${k}: ${quote(v)}`),
    '    deploy:',
    ...(s.replicas ? [`      replicas: ${s.replicas}`] : []),
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
