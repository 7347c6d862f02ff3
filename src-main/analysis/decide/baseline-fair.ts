// Whether a baseline is fair to this run, from what both runs stored: the host that ran them (CPU
// model, cores, memory), where the cells ran (target), and the load settings of the configurations
// compared (measured and warm-up seconds, load threads, the probe). Those differing make the runs
// not comparable: verdicts are shown but do not gate. The app's image, its environment and the
// Node.js version differing are what a baseline is there to measure: they are listed as changes.
import { fmtBytes } from '../../common/format.ts';
import { HOST_MEMORY_TOLERANCE } from '../../common/thresholds.ts';
import type { RunDetail, StoredCell } from '../../model/stored.ts';
import type { HostFacts } from '../../model/types.ts';
import { configurationKey } from './group.ts';
import type { Comparability } from '../baseline-types.ts';

const counted = (run: RunDetail, keys: ReadonlySet<string>): StoredCell[] =>
  run.cells.filter((c) => c.config.phase !== 'verify' && keys.has(configurationKey(c.config)));

const distinct = (cells: StoredCell[], f: (c: StoredCell) => string | null): string[] =>
  [...new Set(cells.map(f).filter((x): x is string => x !== null))].sort();

const said = (xs: string[]): string => (xs.length ? xs.join(', ') : 'none recorded');

const hostWords = (h: HostFacts): string =>
  `${h.hostname} (${h.cores} core${h.cores === 1 ? '' : 's'}, ${h.cpuModel}, ${fmtBytes(h.memoryBytes)})`;

function hostProblems(b: RunDetail, c: RunDetail, out: Comparability): void {
  const [hb, hc] = [b.host, c.host];
  const memoryOff = Math.abs(hb.memoryBytes - hc.memoryBytes) > HOST_MEMORY_TOLERANCE * Math.max(hb.memoryBytes, 1);
  if (hb.cpuModel !== hc.cpuModel || hb.cores !== hc.cores || memoryOff)
    out.problems.push(`the baseline (run ${b.id}) ran on ${hostWords(hb)}, this run on ${hostWords(hc)}`);
  else if (hb.hostname !== hc.hostname)
    out.notes.push(`the hostname differs (${hb.hostname}, ${hc.hostname}); the CPU, cores and memory are the same`);
}

/** One setting of the compared cells on both sides: a problem or a change when the values differ. */
function setting(
  name: string,
  b: StoredCell[],
  c: StoredCell[],
  f: (x: StoredCell) => string | null,
  into: string[],
): void {
  const [vb, vc] = [distinct(b, f), distinct(c, f)];
  if (vb.join('\n') !== vc.join('\n')) into.push(`${name}: ${said(vb)} in the baseline, ${said(vc)} in this run`);
}

const target = (c: StoredCell): string =>
  c.ranOn ? `${c.ranOn.target === c.ranOn.kind ? c.ranOn.kind : `${c.ranOn.target} (${c.ranOn.kind})`}` : 'local';

export function comparabilityOf(
  baselines: readonly RunDetail[],
  candidate: RunDetail,
  shared: string[],
): Comparability {
  const out: Comparability = { comparable: true, problems: [], changes: [], notes: [] };
  const keys = new Set(shared);
  const c = counted(candidate, keys);
  for (const base of baselines) {
    if (base.id === candidate.id) out.notes.push('the baseline is this run itself');
    hostProblems(base, candidate, out);
    const b = counted(base, keys);
    setting('where the cells ran', b, c, target, out.problems);
    setting('measured seconds per cell', b, c, (x) => String(x.config.durationSec), out.problems);
    setting('warm-up seconds per cell', b, c, (x) => String(x.config.warmupSec), out.problems);
    setting(
      'load threads',
      b,
      c,
      (x) => (x.config.load.threads === undefined ? 'auto' : String(x.config.load.threads)),
      out.problems,
    );
    setting('runtime probe', b, c, (x) => (x.config.probe ? 'on' : 'off'), out.problems);
    for (const app of distinct(c, (x) => x.config.app)) {
      const [ba, ca] = [b.filter((x) => x.config.app === app), c.filter((x) => x.config.app === app)];
      if (ba.length === 0) continue;
      setting(`${app}'s image`, ba, ca, (x) => x.imageTag, out.changes);
      setting(`${app}'s environment`, ba, ca, (x) => JSON.stringify(x.config.env), out.changes);
      setting(`${app}'s Node.js flags`, ba, ca, (x) => (x.config.nodeFlags ?? []).join(' ') || 'none', out.changes);
    }
    // CellResult.nodeVersion (cells stored before it have none).
    const node = (x: StoredCell): string | null => x.nodeVersion ?? null;
    if (b.some(node) && c.some(node)) setting('Node.js', b, c, node, out.changes);
    else if (base.host.nodeVersion !== candidate.host.nodeVersion)
      out.notes.push(
        `this host's Node.js differs (${base.host.nodeVersion}, ${candidate.host.nodeVersion}); ` +
          'the cells did not record their own',
      );
  }
  out.problems = [...new Set(out.problems)];
  out.changes = [...new Set(out.changes)];
  out.notes = [...new Set(out.notes)];
  out.comparable = out.problems.length === 0;
  return out;
}
