import { linkText } from '../common/labels.ts';
import type { StoredCell } from '../store/index.ts';
import { fmtBytes, fmtNum, fmtUs, cellWarmupText } from '../common/format.ts';
import { table } from './format.ts';

export { cellLabel } from '../common/labels.ts';

/** Cells stopped before their end: what they measured is partial, never a result. */
const isPartial = (c: StoredCell): boolean => c.status === 'cancelled' || c.status === 'interrupted';

/** ", 2 threads" where more than one load thread generated the load (or the matrix asked for a count). */
function threadsText(c: StoredCell): string {
  const n = c.load?.threads ?? c.config.load.threads;
  return n !== undefined && (n > 1 || c.config.load.threads !== undefined) ? `, ${n} thr` : '';
}

const replicasText = (c: StoredCell): string => ((c.config.replicas ?? 1) >= 2 ? `${c.config.replicas} × ` : '');

export function cellsTable(cells: StoredCell[]): string {
  const partial = cells.some(isPartial) && cells.some((c) => isPartial(c) && c.rpsMean !== null);
  const t = table(
    [
      '#',
      'app',
      'mode',
      'workers',
      'cpu',
      'memory',
      'load',
      'warm-up',
      'status',
      'req/s',
      'p50',
      'p99',
      'max',
      'cpu%cap',
      'mem max',
      'flags',
    ],
    cells.map((c) => [
      // Cells after the grid say why they ran: a settling repetition (s), a verification (v).
      `${c.config.index + 1}${c.config.phase === 'settle' ? ' s' : c.config.phase === 'verify' ? ' v' : ''}`,
      c.config.app +
        (c.config.requests ? ` [${c.config.requests.name}]` : '') +
        // The exact version it ran, where the cell named one ("22" ran 22.11.0).
        (c.config.node ? ` · node ${c.nodeVersion ?? c.config.node}` : ''),
      c.config.mode,
      String(c.config.workers),
      // Replicas: the caps are each container's, so the count leads them ("2 × 500m").
      `${replicasText(c)}${c.config.cpuMillis}m`,
      `${replicasText(c)}${c.config.memoryMb} MB`,
      (c.config.load.model === 'closed' ? `${c.config.load.connections} conn` : `${c.config.load.rate} rps`) +
        threadsText(c) +
        linkText(c.config.load),
      cellWarmupText(c),
      c.status,
      ...[
        fmtNum(c.rpsMean),
        fmtUs(c.p50Us),
        fmtUs(c.p99Us),
        fmtUs(c.maxUs),
        c.cpuPctMean === null ? '—' : `${Math.round(c.cpuPctMean)}%`,
        fmtBytes(c.memMaxBytes),
      ].map((v) => (isPartial(c) && v !== '—' ? `(${v})` : v)),
      isPartial(c) ? '' : c.flags.map((f) => f.kind).join(' '),
    ]),
  );
  const notes = [
    ...(partial ? ['(…) partial seconds of a cell that did not finish: not a result, left out of the answer.'] : []),
    ...(cells.some((c) => c.config.phase === 'settle')
      ? ['s: a settling repetition of a contender, run while the answer was undecided; counted like any repetition.']
      : []),
    ...(cells.some((c) => c.config.phase === 'verify')
      ? [
          'v: the pick run exactly as a deploy snippet deploys it (its own limits); ' +
            'evidence for the snippet, not a repetition.',
        ]
      : []),
  ];
  return notes.length ? `${t}\n${notes.join('\n')}` : t;
}
