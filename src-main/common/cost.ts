// What a configuration costs: prices per vCPU-hour, GB-hour and replica-hour, and the arithmetic
// from a configuration's reserved resources and its measured goodput to a cost per million
// requests (and at an objective's rate). Plain numbers only, so the CLI, the UI, the reports and
// the analysis all compute the same figures; the statistics (which is cheaper) are in analysis/decide/cost.ts.
import { fmtNum } from './format.ts';
import type { ConfigurationCost, PriceSource, Prices } from '../model/cost.ts';

export type { ConfigurationCost, PriceSource, Prices };

/**
 * Example prices, not a quote: Google Cloud Compute Engine N2 (general purpose), us-central1,
 * on-demand list prices per vCPU-hour and GB-hour as published in 2024 (cloud.google.com/compute/
 * vm-instance-pricing). Give your own with --cpu-price / --memory-price / --replica-price.
 */
export const DEFAULT_PRICES: Readonly<Prices> = Object.freeze({ cpuHour: 0.031611, gbHour: 0.004237, replicaHour: 0 });

/** What cost needs of a configuration: its caps per replica and how many replicas (absent = 1). */
export interface Reserved {
  cpuMillis: number;
  memoryMb: number;
  replicas?: number;
}

/** Dollars an hour for the configuration's reserved resources: replicas × (CPUs × vCPU price + GB × GB price + pod). */
export function hourlyCost(c: Reserved, p: Prices): number {
  const replicas = c.replicas && c.replicas >= 2 ? c.replicas : 1;
  return replicas * ((c.cpuMillis / 1000) * p.cpuHour + (c.memoryMb / 1024) * p.gbHour + p.replicaHour);
}

/** Dollars per million requests at a goodput (req/s): hourly ÷ (goodput × 3600) × 1e6; null without goodput. */
export function perMillion(hourly: number, goodputRps: number): number | null {
  return goodputRps > 0 ? (hourly / (goodputRps * 3600)) * 1e6 : null;
}

/** Copies of a configuration that serve a rate, rounded up (part of a copy is a whole one); null without goodput. */
export function copiesFor(rate: number, goodputRps: number): number | null {
  // A hair of float error (2,000 ÷ 1,000.0000001) must not become a whole extra copy.
  return goodputRps > 0 ? Math.max(1, Math.ceil(rate / goodputRps - 1e-9)) : null;
}

/** "$0.0123", "$1.23", "$1,234": three significant digits below a dollar, cents above. */
export function fmtMoney(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  if (x === 0) return '$0';
  if (Math.abs(x) >= 100) return `$${fmtNum(x, 0)}`;
  if (Math.abs(x) >= 1) return `$${fmtNum(x, 2)}`;
  const digits = Math.min(8, Math.max(2, 2 - Math.floor(Math.log10(Math.abs(x)))));
  return `$${x.toFixed(digits)}`;
}

/** "$0.031611 per vCPU-hour, $0.004237 per GB-hour" (and per replica-hour when charged). */
export function pricesText(p: Prices): string {
  const price = (x: number): string => `$${Number(x.toPrecision(6))}`;
  const parts = [`${price(p.cpuHour)} per vCPU-hour`, `${price(p.gbHour)} per GB-hour`];
  if (p.replicaHour > 0) parts.push(`${price(p.replicaHour)} per replica-hour`);
  return parts.join(', ');
}

/** What the prices are, in words: "example prices (Google Cloud N2 on-demand, 2024; not a quote)" or "the run's". */
export function pricesSourceText(source: PriceSource): string {
  return source === 'default'
    ? 'example prices (Google Cloud N2 on-demand list prices, us-central1, 2024; not a quote)'
    : source === 'given'
      ? 'prices given now'
      : 'the prices stored with the run';
}

/** The upper end of a plausible price: a typo (a monthly price, cents for dollars) is refused, not priced. */
export const MAX_PRICE = 1000;

/**
 * A price option as typed ("0.0316", "$0.0316"): the number, or an error message naming the option.
 * Negative, non-numbers and above MAX_PRICE are refused.
 */
export function parsePrice(option: string, text: string): number | string {
  const t = text.trim().replace(/^\$/, '');
  const n = Number(t);
  if (t === '' || !Number.isFinite(n) || n < 0 || n > MAX_PRICE)
    return `${option} takes a price per hour in dollars from 0 to ${MAX_PRICE}, e.g. 0.0316; got "${text}".`;
  return n;
}

/** Whether a value read back from storage is a complete set of prices. */
export function isPrices(x: unknown): x is Prices {
  if (x === null || typeof x !== 'object') return false;
  const p = x as Record<string, unknown>;
  const ok = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  return ok(p.cpuHour) && ok(p.gbHour) && ok(p.replicaHour);
}

/** "$0.0123 (0.0110–0.0140)" or "≤ $0.0123": a cost with its interval, or as the upper bound it is. */
export function costText(k: ConfigurationCost): string {
  if (k.perMillion === null) return '—';
  if (k.upperBound) return `≤ ${fmtMoney(k.perMillion)}`;
  if (!k.interval) return fmtMoney(k.perMillion);
  const high = k.interval.high === null ? 'unbounded' : fmtMoney(k.interval.high).slice(1);
  return `${fmtMoney(k.perMillion)} (${fmtMoney(k.interval.low).slice(1)}–${high})`;
}

/** "3 copies (3–4 over the interval), $0.124 an hour" at the objective's rate; "—" without one. */
export function atRateText(k: ConfigurationCost): string {
  const a = k.atRate;
  if (!a) return '—';
  const range = a.copiesLow !== a.copies || a.copiesHigh !== a.copies ? ` (${a.copiesLow}–${a.copiesHigh ?? '?'})` : '';
  const bound = k.upperBound ? '≤ ' : '';
  return `${bound}${a.copies} cop${a.copies === 1 ? 'y' : 'ies'}${range}, ${bound}${fmtMoney(a.hourly)} an hour`;
}
