import type { RunEvent } from '../model/events.ts';
import { cellLabel } from '../common/labels.ts';
import { fmtDuration, fmtNum, fmtUs } from '../common/format.ts';
import { PHASE_WORDS, phasePlanText } from '../common/labels.ts';

/** How many of a failed cell's log lines the terminal shows (the full tail is in `rightsize show`). */
const LOG_LINES = 12;

interface Current {
  label: string;
  phase: string;
  t: number;
  rps: number;
  p99: number;
}

/**
 * Renders run events on a terminal: one line rewritten in place for the running cell(s) (TTY only;
 * several at once on a target with the nodes, told apart by their index) and one permanent line per
 * finished cell. Everything goes to `out` (stderr under --json).
 */
export function progressPrinter(out: NodeJS.WriteStream, verbose: boolean): (e: RunEvent) => void {
  const tty = Boolean(out.isTTY);
  let live = '';
  let buildingSaid = false;
  let status = { done: 0, total: 0, eta: 0 };
  const running = new Map<number, Current>();
  const write = (line: string): void => {
    if (tty && live) out.write('\r\x1b[2K');
    out.write(`${line}\n`);
    live = '';
    if (tty) draw();
  };
  const draw = (): void => {
    if (!tty || !status.total) return;
    const width = 20;
    const done = Math.round((status.done / status.total) * width);
    const bar = '█'.repeat(done) + '░'.repeat(width - done);
    const metrics = (c: Current): string =>
      c.phase === 'measuring' ? `  ${fmtNum(c.rps)} req/s p99 ${fmtUs(c.p99)} t=${c.t + 1}s` : '';
    const cells = [...running.entries()].sort(([a], [b]) => a - b);
    if (cells.length === 0) return; // between cells: the next cell-started draws
    if (cells.length === 1) {
      const [, c] = cells[0]!;
      // Cells finished, not the cell's index: the grid skips cells of configurations already out of the contest.
      const eta = fmtDuration(status.eta);
      live = `${bar} ${status.done + 1}/${status.total} ETA ${eta}  ${c.label} — ${c.phase}${metrics(c)}`;
    } else {
      // Several at once: each by its number, its phase, its latest second.
      const each = cells.map(([i, c]) => `#${i + 1} ${c.label} — ${c.phase}${metrics(c)}`).join(' │ ');
      const eta = fmtDuration(status.eta);
      live = `${bar} ${status.done}/${status.total} done, ${cells.length} running, ETA ${eta}  ${each}`;
    }
    out.write(`\r\x1b[2K${live.slice(0, (out.columns || 120) - 1)}`);
  };
  return (e) => {
    switch (e.type) {
      case 'run-started':
        write(
          e.estimate
            ? `Run ${e.runId} "${e.name}": ${phasePlanText(e.estimate)}; about ${fmtDuration(e.etaSec)} ` +
                `(${fmtDuration(e.estimate.lowSec)}–${fmtDuration(e.estimate.highSec)}).`
            : `Run ${e.runId} "${e.name}": ${e.total} cell(s), about ${fmtDuration(e.etaSec)}.`,
        );
        break;
      case 'run-phase':
        status = { ...status, total: e.total, eta: e.etaSec };
        write(`${PHASE_WORDS[e.phase]}: ${e.message}`);
        break;
      case 'log':
        if (e.phase) write(`  ${e.level === 'warn' ? 'warning: ' : ''}${e.message}`);
        else if (e.level === 'warn' || verbose) write(`${e.level === 'warn' ? 'warning: ' : '  '}${e.message}`);
        else if (!buildingSaid) {
          // Only image builds log at info level: say once that the wait is that, not a hang.
          buildingSaid = true;
          write('Building images (cached after the first run; --verbose shows the build log)…');
        }
        break;
      case 'cell-started':
        status = { ...status, total: e.total, eta: e.etaSec };
        running.set(e.index, { label: cellLabel(e.cell), phase: 'starting', t: 0, rps: 0, p99: 0 });
        draw();
        break;
      case 'cell-phase': {
        const c = running.get(e.index);
        if (c) c.phase = e.phase;
        draw();
        break;
      }
      case 'sample': {
        if (e.sample.warmup) break; // the line shows measured seconds; warm-up is its phase
        const c = running.get(e.index);
        if (c) Object.assign(c, { t: e.sample.t, rps: e.sample.rps, p99: e.sample.p99Us });
        draw();
        break;
      }
      case 'cell-finished': {
        const r = e.result;
        const mark = r.status === 'ok' ? '✓' : r.status === 'cancelled' ? '–' : '✗';
        // Only a cell that finished ok has a result: the seconds a cancelled cell got are not one.
        const res = !r.load
          ? ''
          : r.status === 'ok'
            ? `${fmtNum(r.load.rpsMean)} req/s, p50 ${fmtUs(r.load.latencyUs.p50)}, p99 ${fmtUs(r.load.latencyUs.p99)}`
            : r.status === 'cancelled'
              ? 'stopped before the end (its partial seconds are kept, not counted as a result)'
              : '';
        const [head, ...logLines] = r.status !== 'ok' && r.failure ? r.failure.split('\n') : [];
        const why = head ? ` — ${head}` : '';
        const flags = r.flags.length && r.status !== 'cancelled' ? `  [${r.flags.map((f) => f.kind).join(', ')}]` : '';
        status.eta = e.etaSec;
        status.done++;
        running.delete(e.index);
        write(
          `${mark} ${status.done}/${e.total} ${cellLabel(r.config)}: ${r.status}${res ? `, ${res}` : ''}${why}${flags}`,
        );
        // A failure carries the container's last log lines: the cause is usually there.
        if (logLines.length)
          write(
            `    last lines of the container's log:\n${logLines
              .slice(-LOG_LINES)
              .map((l) => `    │ ${l}`)
              .join('\n')}`,
          );
        break;
      }
      case 'run-finished':
        status.total = 0;
        running.clear();
        if (tty && live) out.write('\r\x1b[2K');
        live = '';
        out.write(`Run ${e.runId} ${e.status}${e.error ? `: ${e.error}` : ''}.\n`);
        break;
    }
  };
}
