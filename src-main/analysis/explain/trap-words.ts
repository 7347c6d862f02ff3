// The container traps in words (decided in decide/traps.ts; the libuv pool's from the line of cause,
// the versions' from the version comparison): a short form for the summary's one bullet, the full one
// for --explain. Reads decisions, makes none.
import { fmtNum } from '../../common/format.ts';
import { heapFitMb } from '../../common/heap-fit.ts';
import { capitalize } from '../../common/text.ts';
import type { RuntimeReading } from '../../model/runtime.ts';
import { onWhat, who } from '../names.ts';
import type { RuntimeSeen, TrapFinding, TrapNote } from '../trap-types.ts';
import type { CauseNote, ComparisonNote, ConfigurationSummary } from '../types.ts';

const cpusText = (n: number): string => `${Number(n.toFixed(2))} CPU`;
const inCells = (f: TrapFinding): string => (f.cells < f.of ? ` (in ${f.cells} of its ${f.of} cells)` : '');

/**
 * The ecosystem trap in one sentence; with `count`, the instances the deployed configuration runs (the summary says it
 * of the pick), else the answer's count in words (said once for every configuration of the app).
 */
export const ecosystemShort = (e: { file: string; instances: string; hostCpus: number }, count?: number): string =>
  `${e.file} says instances: ${e.instances}: PM2 would start ${e.hostCpus} here and 48 on a 48-core node; ` +
  `set instances: ${count ?? "the answer's count"}.`;

/** The ecosystem file's `instances` and more workers than asked: about the app, said once for all its configs. */
function forksWords(f: Extract<TrapFinding, { kind: 'forks-by-host' }>, app: string): TrapNote[] {
  const box = `in a ${cpusText(f.capCpus)} container on this ${f.hostCpus}-core host, os.cpus() says ${f.hostCpus}`;
  const out: TrapNote[] = [];
  if (f.ecosystem) {
    const { file, instances } = f.ecosystem;
    out.push({
      kind: f.kind,
      key: null,
      app,
      short: ecosystemShort({ file, instances, hostCpus: f.hostCpus }),
      ecosystem: { file, instances, hostCpus: f.hostCpus },
      text:
        `${capitalize(app)}'s ${file} says instances: ${instances}, and PM2 counts os.cpus(): ${box}, so it would ` +
        `start ${f.hostCpus} processes here and 48 on a 48-core node, whatever the CPU limit. Rightsize ran the ` +
        "matrix's worker counts; deploy with instances set to the count the answer names.",
    });
  }
  if (f.seen > f.asked) {
    const follows = f.seen === f.hostCpus ? `, as many as os.cpus() says (${box})` : '';
    out.push({
      kind: f.kind,
      key: null,
      app,
      short:
        `${capitalize(app)} started ${f.seen} workers where ${f.asked} ${f.asked === 1 ? 'was' : 'were'} asked` +
        `${follows ? `: os.cpus() says ${f.hostCpus}` : ''}; set the count explicitly.`,
      text:
        `${capitalize(app)} started ${f.seen} serving processes where the matrix asked for ${f.asked}` +
        `${follows}${inCells(f)}. ` +
        `${follows ? 'Counted that way it starts 48 on a 48-core node, whatever the CPU limit. ' : ''}` +
        'Set its worker count explicitly (WEB_CONCURRENCY, PM2 instances) to the one the answer names.',
    });
  }
  return out;
}

function heapWords(
  f: Extract<TrapFinding, { kind: 'heap-above-cap' }>,
  label: string,
  limitMb: number | null,
): TrapNote {
  // At the answer's own memory limit for it, the flag its verified container snippets carry (common/heap-fit.ts).
  const atLimit = limitMb !== null && limitMb !== f.memoryMb ? heapFitMb(limitMb, f) : null;
  const deployed =
    atLimit === null ? '' : `; at the ${limitMb} MB limit the answer gives it, --max-old-space-size=${atLimit}`;
  const need = Math.round(f.processes * f.heapLimitMb + f.otherMb);
  const n = f.processes === 1 ? 'its process' : `each of its ${fmtNum(f.processes)} serving processes`;
  const fix =
    f.fitMb === null
      ? 'no heap limit fits beside the rest: give it more memory or fewer workers'
      : `--max-old-space-size=${f.fitMb} fits in ${f.memoryMb} MB` +
        (f.fitPct !== null ? ` (or --max-old-space-size-percentage=${f.fitPct}, which this Node.js takes)` : '') +
        deployed;
  return {
    kind: f.kind,
    key: null,
    short: `Heap above the cap: ${label} lets V8 grow to ${need} MB in ${f.memoryMb} MB; ${fix}.`,
    text:
      `${capitalize(label)}: V8's heap limit is ${f.heapLimitMb} MB in ${n} (Node ${f.node}), and the rest took ` +
      `${f.otherMb} MB, so the heap can grow to ${need} MB in a ${f.memoryMb} MB container${inCells(f)}: the kernel ` +
      `kills the process before V8 collects in earnest. ${capitalize(fix)}.`,
  };
}

function parallelismWords(f: Extract<TrapFinding, { kind: 'parallelism' }>, label: string): TrapNote {
  const how =
    f.parallelism > Math.ceil(f.capCpus)
      ? f.parallelism === f.hostCpus
        ? "the host's count"
        : 'more'
      : 'rounded down';
  return {
    kind: f.kind,
    key: null,
    short:
      `os.availableParallelism() says ${f.parallelism} on ${cpusText(f.capCpus)} (${how}); ` +
      'pools sized by it misjudge the box.',
    text:
      `${capitalize(label)}: os.availableParallelism() says ${f.parallelism} under a ${cpusText(f.capCpus)} cap ` +
      `(${how}; Node ${f.node})${inCells(f)}. What sizes itself by it misjudges the box: worker pools (piscina), ` +
      `PM2's instances: "max", the app's own code. Give them the count explicitly.`,
  };
}

/** "4 threads: 820 req/s (95 % interval 790–850)". */
const poolRps = (pool: string, c: ConfigurationSummary): string =>
  `${pool}: ${fmtNum(c.rps?.mean ?? 0)} req/s` +
  (c.rps?.ci ? ` (95 % interval ${fmtNum(Math.max(0, c.rps.ci.low))}–${fmtNum(c.rps.ci.high)})` : '');

/** The same configuration but for UV_THREADPOOL_SIZE: the pool sizes the matrix tried beside it. */
function poolSiblings(c: ConfigurationSummary, all: readonly ConfigurationSummary[]): ConfigurationSummary[] {
  const rest = (x: ConfigurationSummary): string => {
    const { UV_THREADPOOL_SIZE: _pool, ...env } = x.envSet ?? {};
    return JSON.stringify([x.scopeKey, x.mode, x.workers, x.node ?? null, x.nodeFlags ?? [], env]);
  };
  return all.filter((x) => x.key !== c.key && x.rps && rest(x) === rest(c));
}

/** The pool's size as the processes read it, and what the other pool sizes the matrix tried measured. */
function threadpoolWords(
  c: ConfigurationSummary,
  seen: RuntimeSeen | undefined,
  all: readonly ConfigurationSummary[],
): TrapNote {
  const pool = seen?.server?.threadpool;
  const size =
    pool === undefined
      ? 'its UV_THREADPOOL_SIZE'
      : `UV_THREADPOOL_SIZE is ${pool}${pool === 4 ? " (libuv's default, whatever the CPU cap)" : ''}`;
  const siblings = poolSiblings(c, all);
  const threads = (x: ConfigurationSummary): string => `${x.envSet?.UV_THREADPOOL_SIZE ?? 4} threads`;
  const tried = siblings.length
    ? ` The matrix tried other sizes beside it: ${[c, ...siblings].map((x) => poolRps(threads(x), x)).join('; ')}.`
    : ' The matrix tried no other pool size: an environment dimension of UV_THREADPOOL_SIZE would say if a larger ' +
      'one helps.';
  return {
    kind: 'threadpool',
    key: c.key,
    short: `Requests wait on the libuv pool: ${size}.`,
    text:
      `${capitalize(who(c))} on ${onWhat(c)}: requests wait on the libuv pool, not the event loop; ` +
      `${size} in every process.${tried}`,
  };
}

const readingText = (r: RuntimeReading): string =>
  `os.availableParallelism() ${r.parallelism ?? 'n/a'}, heap limit ${Math.round(r.heapLimitBytes / 2 ** 20)} MB`;

/** Where two Node.js versions of one configuration saw different values, and whether the result differed. */
function versionWords(n: ComparisonNote, seen: ReadonlyMap<string, RuntimeSeen>): TrapNote | null {
  const [a, b] = n.keys.map((k) => seen.get(k)?.server);
  if (!a || !b || a.node === b.node) return null;
  if (a.parallelism === b.parallelism && Math.abs(a.heapLimitBytes - b.heapLimitBytes) < 2 ** 20) return null;
  return {
    kind: 'versions',
    key: n.keys[0],
    short: `Node ${a.node} and ${b.node} saw the box differently (${readingText(a)} against ${readingText(b)}).`,
    text: `Node ${a.node} saw ${readingText(a)}; Node ${b.node} saw ${readingText(b)}, in the same box. ${n.text}`,
  };
}

/** Every trap of the run in words: the deployed configuration's first. */
export function trapNotes(input: {
  findings: readonly TrapFinding[];
  seen: readonly RuntimeSeen[];
  configurations: readonly ConfigurationSummary[];
  causes: readonly CauseNote[];
  comparisons: readonly ComparisonNote[];
  probed: boolean;
  probeOff: boolean;
  /** The answer's memory limit for a configuration (size/sizing.ts), where it has one. */
  limitMb: (key: string) => number | null;
}): TrapNote[] {
  if (!input.probed) {
    const why = input.probeOff
      ? 'the runtime probe was off (--no-probe)'
      : 'the runtime probe heard no process of the cells';
    return [
      {
        kind: 'not-checked',
        key: null,
        short: `The container traps were not checked: ${why}.`,
        text:
          'The container traps (forks by the host, heap above the cap, the libuv pool, parallelism) were not ' +
          `checked: ${why}, so no process said what it saw of its box.`,
      },
    ];
  }
  const byKey = new Map(input.configurations.map((c) => [c.key, c]));
  const seen = new Map(input.seen.map((s) => [s.key, s]));
  const out: TrapNote[] = [];
  for (const f of input.findings) {
    const c = byKey.get(f.key);
    if (!c) continue;
    const label = `${who(c)} on ${onWhat(c)}`;
    const notes =
      f.kind === 'forks-by-host'
        ? forksWords(f, c.app)
        : [
            {
              ...(f.kind === 'heap-above-cap' ? heapWords(f, label, input.limitMb(f.key)) : parallelismWords(f, label)),
              key: f.key,
            },
          ];
    // The same words of another configuration (an app's file) are said once.
    for (const n of notes) if (!out.some((o) => o.text === n.text)) out.push(n);
  }
  for (const cause of input.causes.filter((x) => x.kind === 'off-loop')) {
    const c = byKey.get(cause.key);
    if (c) out.push(threadpoolWords(c, seen.get(c.key), input.configurations));
  }
  for (const n of input.comparisons.filter((x) => x.kind === 'version')) {
    const v = versionWords(n, seen);
    if (v) out.push(v);
  }
  return out;
}
