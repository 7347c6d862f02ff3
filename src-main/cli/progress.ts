import type { RunEvent } from '../engine/events.ts';
import { cellLabel } from '../common/labels.ts';
import { fmtDuration, fmtNum, fmtUs } from '../common/format.ts';

/** How many of a failed cell's log lines the terminal shows (the full tail is in `rightsize show`). */
const LOG_LINES = 12;

/**
 * Renders run events on a terminal: one line rewritten in place for the current cell (TTY only)
 * and one permanent line per finished cell. Everything goes to `out` (stderr under --json).
 */
export function progressPrinter(out: NodeJS.WriteStream, verbose: boolean): (e: RunEvent) => void {
  const tty = Boolean(out.isTTY);
  let live = '';
  let buildingSaid = false;
  let status = { index: 0, total: 0, eta: 0, label: '', phase: '', t: 0, rps: 0, p99: 0 };
  const write = (line: string): void => {
    if (tty && live) out.write('\r\x1b[2K');
    out.write(`${line}\n`);
    live = '';
    if (tty) draw();
  };
  const draw = (): void => {
    if (!tty || !status.total) return;
    const width = 20;
    const done = Math.round((status.index / status.total) * width);
    const bar = '█'.repeat(done) + '░'.repeat(width - done);
    const metrics = status.phase === 'measuring' ? `  ${fmtNum(status.rps)} req/s p99 ${fmtUs(status.p99)} t=${status.t + 1}s` : '';
    live = `${bar} ${status.index + 1}/${status.total} ETA ${fmtDuration(status.eta)}  ${status.label} — ${status.phase}${metrics}`;
    out.write(`\r\x1b[2K${live.slice(0, (out.columns || 120) - 1)}`);
  };
  return (e) => {
    switch (e.type) {
      case 'run-started':
        write(`Run ${e.runId} "${e.name}": ${e.total} cell(s), about ${fmtDuration(e.etaSec)}.`);
        break;
      case 'log':
        if (e.level === 'warn' || verbose) write(`${e.level === 'warn' ? 'warning: ' : '  '}${e.message}`);
        else if (!buildingSaid) {
          // Only image builds log at info level: say once that the wait is that, not a hang.
          buildingSaid = true;
          write('Building images (cached after the first run; --verbose shows the build log)…');
        }
        break;
      case 'cell-started':
        status = { ...status, index: e.index, total: e.total, eta: e.etaSec, label: cellLabel(e.cell), phase: 'starting', t: 0 };
        draw();
        break;
      case 'cell-phase':
        status.phase = e.phase;
        draw();
        break;
      case 'sample':
        status = { ...status, t: e.sample.t, rps: e.sample.rps, p99: e.sample.p99Us };
        draw();
        break;
      case 'cell-finished': {
        const r = e.result;
        const mark = r.status === 'ok' ? '✓' : r.status === 'cancelled' ? '–' : '✗';
        // Only a cell that finished ok has a result: the seconds a cancelled cell got are not one.
        const res = !r.load ? '' : r.status === 'ok' ? `${fmtNum(r.load.rpsMean)} req/s, p50 ${fmtUs(r.load.latencyUs.p50)}, p99 ${fmtUs(r.load.latencyUs.p99)}` : r.status === 'cancelled' ? 'stopped before the end (its partial seconds are kept, not counted as a result)' : '';
        const [head, ...logLines] = r.status !== 'ok' && r.failure ? r.failure.split('\n') : [];
        const why = head ? ` — ${head}` : '';
        const flags = r.flags.length && r.status !== 'cancelled' ? `  [${r.flags.map((f) => f.kind).join(', ')}]` : '';
        status.eta = e.etaSec;
        write(`${mark} ${e.index + 1}/${e.total} ${cellLabel(r.config)}: ${r.status}${res ? `, ${res}` : ''}${why}${flags}`);
        // A failure carries the container's last log lines: the cause is usually there.
        if (logLines.length) write(`    last lines of the container's log:\n${logLines.slice(-LOG_LINES).map((l) => `    │ ${l}`).join('\n')}`);
        break;
      }
      case 'run-finished':
        status.total = 0;
        if (tty && live) out.write('\r\x1b[2K');
        live = '';
        out.write(`Run ${e.runId} ${e.status}${e.error ? `: ${e.error}` : ''}.\n`);
        break;
    }
  };
}
