// An auto-size answer tells one story: every number and state its words give (the memory limit, the
// rule that made it, each memory check, the CPU) is the one in rec.search / rec.sizing, on synthetic
// runs whose search found a limit, kept the bounds' maximum after an undecided or missed check, had
// nothing to check, or stopped; and a matrix run's statements agree with its sizing too.
import { describe, expect, it } from 'vitest';
import {
  recommend,
  recommendedCpuMillis,
  recommendedMemoryLimitMb,
  type Recommendation,
  type Sizing,
} from '../../src-main/analysis/index.ts';
import { MEMORY_ROUND_MB } from '../../src-main/analysis/size/memory.ts';
import { limitText, MEMORY_OUTCOME_WORDS, sizingParts } from '../../src-main/analysis/explain/sizing-words.ts';
import { judge, type CellEvidence } from '../../src-main/engine/auto-size/judge.ts';
import type { SearchStep, SearchTrace, SizeSpec } from '../../src-main/model/search.ts';
import type { RunDetail } from '../../src-main/store/index.ts';
import { cell, reps, run } from '../helpers/run-fixture.ts';

const MIB = 2 ** 20;
const RATE = 1000;
const LOAD = { model: 'rate' as const, rate: RATE, connections: 50 };
const SPEC: SizeSpec = {
  app: 'hello', slo: { p99Ms: 50, minRps: RATE, maxErrorPct: 0.1 }, rate: RATE,
  bounds: { cpuMillis: { min: 250, max: 1000 }, memoryMb: { min: 128, max: 512 }, workers: { min: 1, max: 1 }, modes: ['cluster'] },
  durationSec: 8, warmupSec: 2, maxCells: 12, cpuStepMillis: 250, memoryStepMb: 128, connections: 50,
};

interface P { cpu: number; mem: number; outcome: SearchStep['outcome']; detail?: string }
/** 1 CPU meets, 0.5 misses, 0.75 meets (at 512 MB, where the CPU is searched); then the memory check, if any. */
const CPU_PATH: P[] = [
  { cpu: 1000, mem: 512, outcome: 'meets' },
  { cpu: 500, mem: 512, outcome: 'misses', detail: 'per-second p99 80 ms–95 ms > 50 ms limit; 1,000 of 1,000 req/s' },
  { cpu: 750, mem: 512, outcome: 'meets' },
];

/** A search run: one cell per step, each with `peakMb` as its peak; the trace as the search stores it. */
function searchRun(path: P[], status: SearchTrace['status'], found: SearchTrace['found'], peakMb = 100, words = 'constructed'): RunDetail {
  const r = run(path.map((p) => ({ ...cell({ cpu: p.cpu, mem: p.mem, load: LOAD, rps: RATE, p99Us: p.outcome === 'misses' ? 90_000 : 20_000 }), memMaxBytes: peakMb * MIB })), { name: 'size hello', matrix: SPEC });
  const steps: SearchStep[] = path.map((p, i) => ({
    cellId: r.cells[i]!.id, mode: 'cluster', workers: 1, cpuMillis: p.cpu, memoryMb: p.mem, reason: `step ${i + 1}`, outcome: p.outcome,
    detail: p.detail ?? (p.outcome === 'meets' ? 'per-second p99 18 ms–22 ms ≤ 50 ms; 1,000 of 1,000 req/s' : 'per-second p99 20 ms–70 ms: the interval reaches across the 50 ms limit'),
  }));
  return { ...r, search: { spec: SPEC, steps, status, found, words, gridCells: 16, bestSoFar: null } };
}
const at = (cpuMillis: number, memoryMb: number) => ({ mode: 'cluster' as const, workers: 1, cpuMillis, memoryMb });

const memMbs = (s: string): number[] =>
  [...s.matchAll(/(\d+(?:[.,]\d+)?) (MB|GB)\b/g)].map((m) => Number(m[1]!.replace(',', '')) * (m[2] === 'GB' ? 1024 : 1));
const cpus = (s: string): number[] => [...s.matchAll(/(\d+(?:\.\d+)?) CPU\b/g)].map((m) => Math.round(Number(m[1]) * 1000));
const found = (rec: Recommendation): Sizing => rec.sizing!.find((x) => x.key === rec.search!.foundKey)!;
const allWords = (rec: Recommendation): string => [...rec.words, ...rec.sizingWords, ...sizingParts(rec).flatMap((p) => [p.statement, p.method])].join('\n');

/** What every found answer must satisfy: each memory and CPU number in its words is one of the data's. */
function expectAgreement(rec: Recommendation): void {
  const x = found(rec);
  const m = x.memory;
  const s = m.search!;
  expect(m.limitFrom).toBe('search');
  expect(m.limitMb).toBe(rec.search!.found!.memoryMb);
  expect(recommendedMemoryLimitMb(rec)).toBe(m.limitMb);
  const [memory, cpu] = sizingParts(rec);
  // The statement names the limit and nothing else.
  expect(memory!.statement).toBe(`Memory: limit ${m.limitMb} MB per container`);
  expect(memMbs(memory!.statement)).toEqual([m.limitMb]);
  // Every size in the method is one the data holds: the limit, the rule's value and step, the check,
  // the bounds' maximum, the need the rule multiplied, the found configuration's own peak, and the
  // rule's rounding step.
  const known = new Set([m.limitMb!, s.ruleMb!, s.stepMb!, s.boundsMaxMb, s.check?.memoryMb ?? -1, MEMORY_ROUND_MB]);
  const mb = (b: number | null): number => (b === null ? -1 : Number((b / MIB).toFixed(b < 10 * MIB ? 1 : 0)));
  known.add(mb(s.basisBytes)).add(mb(m.peakBytes)).add(rec.search!.found!.memoryMb);
  for (const n of memMbs(memory!.method)) expect(known, `${n} MB in "${memory!.method}"`).toContain(n);
  // The rule's value is the need × 1.25 rounded up to 32 MB, as the method says.
  expect(s.ruleMb).toBe(Math.ceil((s.basisBytes! * 1.25) / MIB / 32) * 32);
  // The words the answer shows are the same sentence (one source).
  expect(rec.sizingWords).toEqual([memory!.method]);
  expect(memory!.method).toContain(limitText(x));
  // CPU: the statement's number is the search's; the method names the cap below it that did not meet.
  expect(cpus(cpu!.statement)).toEqual([rec.search!.found!.cpuMillis]);
  expect(recommendedCpuMillis(rec)).toBe(rec.search!.found!.cpuMillis);
  expect(x.cpu.requestMillis).toBe(rec.search!.found!.cpuMillis);
  expect(cpu!.method).toContain('at 0.5 CPU: misses: per-second p99 80 ms–95 ms > 50 ms limit');
  for (const n of cpus(cpu!.method)) expect([x.cpu.requestMillis, x.cpu.failedAtMillis]).toContain(n);
  // A memory cap's label is its state; "clean" only for one the search did not find undecided or missing.
  for (const c of m.caps) if (c.outcome === 'undecided' || c.outcome === 'misses') expect(MEMORY_OUTCOME_WORDS[c.outcome]).not.toBe('clean');
  // No knee is drawn over a search's cells, so none is named anywhere.
  expect(rec.sizing!.flatMap((y) => y.roles).filter((r) => /knee/.test(r))).toEqual([]);
  expect(allWords(rec)).not.toMatch(/knee of/);
  // No sentence ends on a progress verb.
  expect(allWords(rec)).not.toMatch(/repeating\.?(\n|$)|; repeating/);
}

describe('an auto-size answer states each number once, from the data', () => {
  it('found, with the memory from the need verified by a cell at that limit', () => {
    const rec = recommend(searchRun([...CPU_PATH, { cpu: 750, mem: 128, outcome: 'meets' }], 'found', at(750, 128)));
    expectAgreement(rec);
    const s = found(rec).memory.search!;
    expect(s).toMatchObject({ reason: 'verified', ruleMb: 128, stepMb: 128, boundsMaxMb: 512, check: { memoryMb: 128, outcome: 'meets', cells: 1 } });
    expect(sizingParts(rec)[0]!.method).toContain('the peak at 512 MB, 100 MB, × 1.25, rounded up to a multiple of 32 MB, is 128 MB, and 1 cell at 128 MB met the objective');
  });

  it('kept at the bounds’ maximum because the check at the rule’s limit was undecided: that check is not "clean"', () => {
    const check: P = { cpu: 750, mem: 128, outcome: 'undecided' };
    const rec = recommend(searchRun([...CPU_PATH, check, { ...check, detail: 'per-second p99 20 ms–70 ms; undecided after 2 cell(s): counted as not meeting' }], 'found', at(750, 512)));
    expectAgreement(rec);
    const m = found(rec).memory;
    expect(m.search).toMatchObject({ reason: 'check-undecided', ruleMb: 128, stepMb: 128, check: { memoryMb: 128, outcome: 'undecided', cells: 2 } });
    const cap = m.caps.find((c) => c.memoryMb === 128)!;
    expect(cap.outcome).toBe('undecided');
    expect(cap.detail).toMatch(/^the search's check was undecided after 2 cells: /);
    expect(m.smallestCleanMb).toBe(512);
    expect(m.failedAtMb).toBe(128);
    const w = sizingParts(rec)[0]!.method;
    expect(w).toContain('512 MB, the bounds\' maximum: the peak at 512 MB, 100 MB, × 1.25');
    expect(w).toContain('but the check at 128 MB was undecided after 2 cells, so the search kept the 512 MB it measured with');
    expect(w).not.toMatch(/met the objective/);
  });

  it('kept at the maximum because the check missed the objective', () => {
    const rec = recommend(searchRun([...CPU_PATH, { cpu: 750, mem: 128, outcome: 'misses', detail: 'per-second p99 60 ms–90 ms > 50 ms limit' }], 'found', at(750, 512)));
    expectAgreement(rec);
    expect(found(rec).memory.caps.find((c) => c.memoryMb === 128)).toMatchObject({ outcome: 'misses' });
    expect(sizingParts(rec)[0]!.method).toContain('but at 128 MB it did not meet the objective (misses), so the search kept the 512 MB');
  });

  it('kept at the maximum because the rule’s limit is not below it (no check ran)', () => {
    const rec = recommend(searchRun(CPU_PATH, 'found', at(750, 512), 450));
    expectAgreement(rec);
    expect(found(rec).memory.search).toMatchObject({ reason: 'not-below', ruleMb: 576, stepMb: 512, check: null });
    expect(sizingParts(rec)[0]!.method).toContain('is 576 MB; the search\'s memory step at or above that is 512 MB, not below it');
  });

  it('kept at the maximum because the budget ran out before the check', () => {
    const rec = recommend(searchRun(CPU_PATH, 'found', at(750, 512)));
    expectAgreement(rec);
    expect(found(rec).memory.search).toMatchObject({ reason: 'not-checked', stepMb: 128, check: null });
    expect(sizingParts(rec)[0]!.method).toContain('but the budget ran out before 128 MB could be checked');
  });

  it('an undecided (stopped) search names no limit, no knee, and no progress verb, even from an older trace', () => {
    const old = 'Could not decide: cluster × 1 worker, 1 CPU, 512 MB: undecided (p99 20–70 ms), but under host-busy: not judged as the server\'s; repeating. Note: 1 configuration(s) stayed undecided.';
    const rec = recommend(searchRun(CPU_PATH.slice(0, 1).map((p) => ({ ...p, outcome: 'undecided' as const })), 'undecided', null, 100, old));
    expect(rec.search!.words).toBe(old.replace('; repeating', ''));
    expect(sizingParts(rec)).toEqual([]);
    expect(rec.sizingWords).toEqual([]);
    expect(rec.sizing!.every((x) => x.roles.length === 0)).toBe(true);
    expect(allWords(rec)).not.toMatch(/repeating|knee of/);
  });
});

describe('the judge says what was measured, never what the search does next', () => {
  it('an undecided verdict under contention ends on the measurement, not on "repeating"', () => {
    const busy: CellEvidence = {
      status: 'ok', failure: null, flags: [{ kind: 'host-busy', reason: 'other processes took 30 %' }], p99Us: 120_000,
      perSecondP99Us: Array.from({ length: 9 }, (_, i) => 120_000 * (1 + 0.05 * Math.sin(i))), perSecondGood: Array(9).fill(1000),
      goodput: 1000, failed: 0, attempts: 9000, shortfallBy: null, bottleneck: 'host', peakBytes: 60 * MIB,
    };
    const j = judge([busy], SPEC);
    expect(j).toMatchObject({ outcome: 'undecided', repeat: true });
    expect(j.detail).toMatch(/not judged as the server's$/);
    expect(j.detail).not.toMatch(/repeating/);
  });
});

describe('a matrix run’s statements agree with its sizing', () => {
  it('memory and CPU statements carry the limit and the request; the words keep saying the same', () => {
    const r = run([
      ...reps({ cpu: 500, mem: 256 }, [5000, 5050, 4950]),
      ...reps({ cpu: 1000, mem: 256 }, [5010, 5040, 4990]),
      ...reps({ cpu: 500, mem: 128 }, [5000, 5020, 4980]),
    ].map((c) => ({ ...c, memMaxBytes: 90 * MIB })));
    const rec = recommend(r);
    const x = rec.sizing!.find((s) => s.recommended)!;
    const [memory, cpu] = sizingParts(rec);
    expect(memMbs(memory!.statement)).toEqual([x.memory.limitMb]);
    expect(memory!.method).toContain(`Recommended memory limit: ${limitText(x)}.`);
    expect(cpus(cpu!.statement)).toEqual([x.cpu.requestMillis]);
    // sizingWordsOf still gives the sentences, and each part's method is made of them.
    for (const p of sizingParts(rec)) for (const w of rec.sizingWords.filter((w) => p.method.includes(w.slice(0, 30)))) expect(p.method).toContain(w);
    expect(rec.sizingWords.slice(0, -1).join(' ')).toBe(sizingParts(rec).map((p) => p.method).join(' '));
  });
});
