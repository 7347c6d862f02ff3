// Short names of cells, shared by every listing (CLI tables, the UI, the answer, the reports).
import type { RunEstimate } from '../model/estimate.ts';
import { envPairs } from './env-name.ts';
import { fmtNum } from './format.ts';
import type { CellConfig, CellLoad } from '../model/types.ts';

const streamsText = (l: CellLoad): string => ((l.streams ?? 1) > 1 ? ` · ${l.streams} streams` : '');
/** load.tlsResume: a re-opened connection resumes its TLS session (absent: a full handshake each). */
const resumeText = (l: CellLoad, words = false): string =>
  l.tlsResume ? (words ? ', sessions resumed' : ' · resumed') : '';

/** A cell's link after its load in the listings ("c20 · TLS · 2000 Mbit/s", "c20 · h2 · 10 streams"); empty without. */
export const linkText = (l: CellLoad): string =>
  `${l.protocol ? ` · ${l.protocol}${streamsText(l)}` : l.tls ? ' · TLS' : ''}${resumeText(l)}` +
  `${l.networkMbps ? ` · ${l.networkMbps} Mbit/s` : ''}`;

/** The same in words, after the load ("20 connections over HTTP/2 (h2, TLS) with 10 streams each"). */
export const linkWords = (l: CellLoad): string =>
  l.protocol
    ? ` over HTTP/2 (${l.protocol === 'h2' ? `h2, TLS${resumeText(l, true)}` : 'h2c, in clear'})` +
      ((l.streams ?? 1) > 1 ? ` with ${l.streams} streams each` : '')
    : l.tls
      ? ` over TLS${resumeText(l, true)}`
      : '';

/** A bandwidth cap in words, after the load (" through 2,000 Mbit/s"); empty without one. */
export const bandwidthWords = (l: CellLoad): string =>
  l.networkMbps ? ` through ${fmtNum(l.networkMbps)} Mbit/s` : '';

/**
 * The link alone, each part that differs among `all` (the links measured beside it) named even where it is the
 * default: " over HTTP/1.1 (TLS)" beside h2, " over plain HTTP" beside TLS, " with no bandwidth cap" beside a cap.
 * Empty when every link is alike.
 */
export function linkAmong(l: CellLoad, all: readonly CellLoad[]): string {
  const varies = (f: (x: CellLoad) => unknown): boolean => new Set(all.map((x) => JSON.stringify(f(x)))).size > 1;
  const http2 = varies((x) => x.protocol ?? null);
  const proto = !varies((x) => [x.protocol ?? null, x.streams ?? 1, Boolean(x.tls)])
    ? ''
    : http2 && !l.protocol
      ? ` over HTTP/1.1 (${l.tls ? 'TLS' : 'in clear'})`
      : linkWords(l) || ' over plain HTTP';
  const net = varies((x) => x.networkMbps ?? null) ? bandwidthWords(l) || ' with no bandwidth cap' : '';
  return proto + net;
}

/**
 * "hello cluster×2 1000m/256MB c20", the short name of a cell used in every listing; with replicas, a
 * Node.js version, flags or settings: "hello cluster×2 2 × 1000m/256MB c20 Node 22 --max-semi-space-size=32 POOL=5".
 */
export function cellLabel(c: CellConfig): string {
  const load = c.load.model === 'closed' ? `c${c.load.connections}` : `${c.load.rate}rps/c${c.load.connections}`;
  const req = c.requests ? ` [${c.requests.name}]` : '';
  // Cells added after the grid say why they ran: settling an undecided answer, verifying a snippet.
  const why = c.phase === 'settle' ? ' (settle)' : c.phase === 'verify' ? ' (verify)' : '';
  const replicas = (c.replicas ?? 1) >= 2 ? `${c.replicas} × ` : '';
  const node = c.node !== undefined ? ` Node ${c.node}` : '';
  const env = envPairs(c.envSet)
    .map(([k, v]) => ` ${k}=${v}`)
    .join('');
  const runtime = `${node}${c.nodeFlags?.length ? ` ${c.nodeFlags.join(' ')}` : ''}${env}`;
  return (
    `${c.app}${req} ${c.mode}×${c.workers} ${replicas}${c.cpuMillis}m/${c.memoryMb}MB ` +
    `${load}${linkText(c.load)}${runtime}${c.repetition > 0 ? ` rep${c.repetition + 1}` : ''}${why}`
  );
}

/** A run's phases as the progress line and the Live view name them. */
export const PHASE_WORDS: Record<'grid' | 'settle' | 'verify', string> = {
  grid: 'Grid',
  settle: 'Settling',
  verify: 'Verifying',
};

/** A matrix run's phases as planned: "a grid of 6 cells, then settling (0–3 cells) and verification (1–3 cells)". */
export function phasePlanText(e: Pick<RunEstimate, 'gridCells' | 'settle' | 'verify'>): string {
  const span = (c: RunEstimate['settle']['cells']): string =>
    `${Math.round(c.low) === Math.round(c.high) ? Math.round(c.high) : `${Math.round(c.low)}–${Math.round(c.high)}`} ` +
    `cell${Math.round(c.high) === 1 ? '' : 's'}`;
  const after = [
    ...(e.settle.cells.high > 0 ? [`settling (${span(e.settle.cells)}, only while undecided)`] : []),
    ...(e.verify.cells.high > 0 ? [`verification (${span(e.verify.cells)})`] : []),
  ];
  const grid = `a grid of ${e.gridCells} cell${e.gridCells === 1 ? '' : 's'}`;
  return after.length ? `${grid}, then ${after.join(' and ')}` : grid;
}
