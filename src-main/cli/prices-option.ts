// --cpu-price, --memory-price and --replica-price: the prices a run is costed at (common/cost.ts).
// `run` and `size` store them with the run (the matrix's or spec's "prices"); `report` costs a
// stored run at them instead of its own, for that report only (the stored prices stay).
import type { Command } from 'commander';
import { DEFAULT_PRICES, parsePrice, type Prices } from '../common/cost.ts';
import { CliError, EXIT } from './exit-codes.ts';

export interface PriceOptions {
  cpuPrice?: string;
  memoryPrice?: string;
  replicaPrice?: string;
}

/** Adds the three price options to a command, with `what` saying what they do there. */
export function addPriceOptions(cmd: Command, what: string): Command {
  const d = DEFAULT_PRICES;
  return cmd
    .option('--cpu-price <$>', `price per vCPU-hour ${what} (default ${d.cpuHour}, an example: see docs/costs.md)`)
    .option('--memory-price <$>', `price per GB-hour of memory limit ${what} (default ${d.gbHour})`)
    .option('--replica-price <$>', `price per replica (pod) hour on top of CPU and memory ${what} (default 0)`);
}

/** The prices given (only those typed); undefined when none was. A bad one is a usage error naming its option. */
export function givenPrices(o: PriceOptions): Partial<Prices> | undefined {
  const read = (flag: string, text: string | undefined): number | undefined => {
    if (text === undefined) return undefined;
    const v = parsePrice(flag, text);
    if (typeof v === 'string') throw new CliError(v, EXIT.usage);
    return v;
  };
  const out: Partial<Prices> = {};
  const cpu = read('--cpu-price', o.cpuPrice);
  const gb = read('--memory-price', o.memoryPrice);
  const pod = read('--replica-price', o.replicaPrice);
  if (cpu !== undefined) out.cpuHour = cpu;
  if (gb !== undefined) out.gbHour = gb;
  if (pod !== undefined) out.replicaHour = pod;
  return Object.keys(out).length ? out : undefined;
}

/**
 * A matrix or size spec with the given prices as its "prices" (over its own, the rest from the
 * defaults), so the run stores them; anything not a plain object reaches validation as it is.
 */
export function withPrices(input: unknown, o: PriceOptions): unknown {
  const given = givenPrices(o);
  if (!given || input === null || typeof input !== 'object' || Array.isArray(input)) return input;
  const own = (input as { prices?: unknown }).prices;
  const base = own && typeof own === 'object' ? (own as Partial<Prices>) : {};
  return { ...input, prices: { ...DEFAULT_PRICES, ...base, ...given } };
}
