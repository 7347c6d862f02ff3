// Auto-size by price (SizeSpec.cheapest) on constructed verdicts: where less CPU needs much more
// memory, the lowest price per hour is not the smallest CPU, and the search finds it.
import { describe, expect, it } from 'vitest';
import type { Judgement } from '../../src-main/engine/auto-size/judge.ts';
import { priceOf, searchCheapest, type Probe } from '../../src-main/engine/auto-size/search.ts';
import { validateSizeSpec } from '../../src-main/engine/auto-size/spec.ts';
import type { SizeSpec } from '../../src-main/model/search.ts';

const HOST = { cores: 2, memoryMb: 4096, apps: ['pbkdf2', 'hello'] };
const MB = 2 ** 20;
// Memory dear, CPU cheap: $0.01 per vCPU-hour, $0.10 per GB-hour.
const PRICES = { cpuHour: 0.01, gbHour: 0.1, replicaHour: 0 };

function spec(over: Record<string, unknown> = {}): SizeSpec {
  const v = validateSizeSpec(
    { app: 'pbkdf2', slo: { p99Ms: 50 }, rate: 200, bounds: { cpuMillis: { min: 250, max: 2000 }, workers: { min: 1, max: 2 }, memoryMb: { min: 128, max: 1024 } }, prices: PRICES, ...over },
    HOST,
  );
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  return v.spec;
}

/** 1 worker meets from 1000m but peaks at 600 MB; 2 workers meet from 1125m and peak at 70 MB. */
async function search(s: SizeSpec) {
  const probes: Probe[] = [];
  const result = await searchCheapest(s, {
    measure: async (p) => {
      probes.push(p);
      const need = p.workers === 1 ? 1000 : 1125;
      const judgement: Judgement = {
        outcome: p.cpuMillis >= need ? 'meets' : 'misses',
        detail: `at ${p.cpuMillis}m`,
        repeat: false,
        p99Ms: null,
        peakBytes: (p.workers === 1 ? 600 : 70) * MB,
      } as Judgement;
      return { cellId: probes.length, judgement };
    },
    onStep: () => {},
  });
  return { result, probes };
}

describe('auto-size: the cheapest by price instead of the smallest CPU', () => {
  it('validates cheapest and prices; a bad price is named', () => {
    expect(spec({ cheapest: true })).toMatchObject({ cheapest: true, prices: PRICES });
    expect(spec()).not.toHaveProperty('cheapest');
    const v = validateSizeSpec({ app: 'pbkdf2', slo: { p99Ms: 50 }, rate: 200, prices: { cpuHour: -1, gbHour: 0.1 } }, HOST);
    expect(v.ok).toBe(false);
    expect(JSON.stringify(!v.ok && v.problems)).toContain('prices.cpuHour');
  });

  it('by price: 2 workers on 1.125 CPU / 128 MB ($0.0238 an hour) over 1 worker on 1 CPU / 768 MB ($0.085)', async () => {
    // 1 worker: memory from its 600 MB peak × 1.25 = 750 → 768 MB; 1 × 0.01 + 0.75 × 0.1 = $0.085 an hour.
    // 2 workers: 70 MB × 1.25 = 87.5 → 128 MB (the bounds' floor); 1.125 × 0.01 + 0.125 × 0.1 = $0.02375 an hour.
    const s = spec({ cheapest: true });
    expect(priceOf(s, { cpuMillis: 1000, memoryMb: 768 })).toBeCloseTo(0.085, 12);
    expect(priceOf(s, { cpuMillis: 1125, memoryMb: 128 })).toBeCloseTo(0.02375, 12);
    const { result } = await search(s);
    expect(result.status).toBe('found');
    expect(result.found).toEqual({ mode: 'cluster', workers: 2, cpuMillis: 1125, memoryMb: 128 });
    expect(result.words).toContain('is the cheapest configuration that meets p99 ≤ 50 ms at 200 req/s with ≤ 0.10 % errors by price, $0.0238 an hour');
  });

  it('without `cheapest` the same: one order of cost ranks by price, never the smallest CPU whatever its memory costs', async () => {
    // Before the one order of cost (issue 39) this found 1 worker on 1 CPU / 768 MB, at $0.085 an hour.
    const { result } = await search(spec());
    expect(result.found).toEqual({ mode: 'cluster', workers: 2, cpuMillis: 1125, memoryMb: 128 });
    expect(result.words).toContain('by price, $0.0238 an hour');
  });
});
