// Numbers, durations and sizes as a person reads them: shared by the CLI, the UI, the reports and the answer.
/** Latency in µs as a person reads it: 850 µs, 12.3 ms, 1.20 s. */
export function fmtUs(us: number | null | undefined): string {
  if (us === null || us === undefined) return '—';
  if (us < 1000) return `${Math.round(us)} µs`;
  if (us < 1_000_000) return `${(us / 1000).toFixed(us < 10_000 ? 2 : 1)} ms`;
  return `${(us / 1e6).toFixed(2)} s`;
}

export function fmtNum(n: number | null | undefined, digits = 0): string {
  if (n === null || n === undefined || Number.isNaN(n)) return '—';
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export function fmtBytes(b: number | null | undefined): string {
  if (b === null || b === undefined) return '—';
  const mb = b / (1024 * 1024);
  return mb >= 1024 ? `${(mb / 1024).toFixed(1)} GiB` : `${mb.toFixed(mb < 10 ? 1 : 0)} MiB`;
}

export function fmtDuration(sec: number | null | undefined): string {
  if (sec === null || sec === undefined) return '—';
  const s = Math.round(sec);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60
    ? `${m}m${String(s % 60).padStart(2, '0')}s`
    : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/**
 * A stored (UTC ISO) time in this machine's local time: "2026-11-22 12:19:09", with the offset
 * from UTC ("2026-11-22 12:19:09 UTC+01:00") where a reader may compare it with other clocks.
 * One convention for the CLI and the UI.
 */
export function fmtLocalTime(iso: string, withOffset = true): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number): string => String(n).padStart(2, '0');
  const text =
    `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ` +
    `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
  if (!withOffset) return text;
  const off = -d.getTimezoneOffset();
  return `${text} UTC${off < 0 ? '−' : '+'}${p(Math.floor(Math.abs(off) / 60))}:${p(Math.abs(off) % 60)}`;
}

/**
 * The warm-up a cell used: "4 s", or "1 → 4 s" when it went on past the configured one until
 * throughput was steady. `used` undefined: the configured one where the cell measured, else "—". `raise`: its first
 * seconds ran at a raised cap (load/warmup.ts), said after it: "2 → 18 s (16 s at 1 CPU)".
 */
export function fmtWarmup(
  configuredSec: number,
  used: number | undefined,
  measured = true,
  raise?: { cpuMillis: number; untilSec: number },
): string {
  if (used === undefined) return measured ? `${configuredSec} s` : '—';
  const at = raise ? ` (${raise.untilSec} s at ${raise.cpuMillis / 1000} CPU)` : '';
  return `${used > configuredSec ? `${configuredSec} → ${used} s` : `${used} s`}${at}`;
}

/** A stored cell's warm-up as the cells tables show it (fmtWarmup): "—" before it ran, its raise said after it. */
export const cellWarmupText = (c: {
  config: { warmupSec: number };
  load?: { warmupUsedSec?: number; warmupRaise?: { cpuMillis: number; untilSec: number } } | null;
}): string => fmtWarmup(c.config.warmupSec, c.load?.warmupUsedSec, Boolean(c.load), c.load?.warmupRaise);

/** A percentage: whole from 10 up (and 0), one decimal from 1, two below: "12 %", "3.4 %", "0.25 %". */
export function fmtPct(x: number): string {
  return `${fmtNum(x, x === 0 || x >= 10 ? 0 : x < 1 ? 2 : 1)} %`;
}

/** A knee margin in percent, without the sign: whole numbers as such, others to one decimal. */
export const fmtMargin = (m: number): string => fmtNum(m, Number.isInteger(m) ? 0 : 1);

/** A ratio with as few decimals as it needs, up to two: "2", "1.5", "0.75". */
export const fmtRatio = (r: number): string => fmtNum(r, Number.isInteger(r) ? 0 : Number.isInteger(r * 10) ? 1 : 2);

/** "1.79 ms ± 0.12": the half-width in the unit and precision fmtUs chose for the mean. */
export function fmtUsPm(meanUs: number, halfUs: number): string {
  const text = fmtUs(meanUs);
  const [num = '', unit = ''] = text.split(' ');
  const decimals = num.split('.')[1]?.length ?? 0;
  const scale = unit === 's' ? 1e6 : unit === 'ms' ? 1000 : 1;
  return `${text} ± ${(halfUs / scale).toFixed(decimals)}`;
}

const MIB = 1024 * 1024;

/** Bytes as the caps are written: "182 MB" (MiB, like "256 MB" of a cap); one decimal below 10. */
export const fmtMb = (bytes: number): string => `${fmtNum(bytes / MIB, Math.abs(bytes) < 10 * MIB ? 1 : 0)} MB`;
