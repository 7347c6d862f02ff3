// The answer's lines of cause come from the probe's seconds and say what they measured: a pair's pick
// explained against its rivals, the pick's memory against its limits, nothing where nothing was probed.
import { describe, expect, it } from 'vitest';
import { recommend } from '../../src-main/analysis/recommend.ts';
import { checkClientBound } from '../../src-main/engine/client-check.ts';
import type { ProbeSecond, ProcessRole } from '../../src-main/model/probe.ts';
import type { CellConfig, LoadResult, StatsSummary } from '../../src-main/model/types.ts';
import type { RunDetail, StoredCell } from '../../src-main/store/index.ts';
import { reps, run } from '../helpers/run-fixture.ts';

const MiB = 2 ** 20;
interface Proc {
  pid: number;
  role: ProcessRole;
  elu: number;
  involuntary: number;
  heapMb?: number;
}
const seconds = (procs: Proc[], n = 8): ProbeSecond[] =>
  Array.from({ length: n }, (_, t) =>
    procs.map(
      (p): ProbeSecond => ({
        t, pid: p.pid, ppid: 1, role: p.role, elu: p.elu, delayP50Ms: 0.2, delayP99Ms: 2, delayMaxMs: 3,
        gcMs: 10, gcCounts: { scavenge: 2, markSweepCompact: 0, incremental: 0, weakCallbacks: 0 }, gcMaxPauseMs: 2,
        gcWindowMs: 1000, heapUsedBytes: (p.heapMb ?? 38) * MiB, heapTotalBytes: 60 * MiB, heapLimitBytes: 2096 * MiB,
        rssBytes: 71 * MiB, externalBytes: MiB, arrayBuffersBytes: 0, activeResources: 3,
        voluntaryCtxSwitches: 50, involuntaryCtxSwitches: p.involuntary,
      }),
    ),
  ).flat();
const primary: Proc = { pid: 10, role: 'primary', elu: 0.01, involuntary: 0 };
const stats = (throttled: number): StatsSummary => ({
  cpuPctMean: 98, cpuPctMax: 100, memMeanBytes: 80 * MiB, memMaxBytes: 90 * MiB, memLimitBytes: 256 * MiB,
  throttledPeriods: throttled, throttledMs: throttled * 10, samples: 8, cpuPeriods: 100,
});

/** cluster ×1 (one busy loop) against cluster ×2 on the same CPU (two half-busy loops, throttled, switching). */
function oversubscribed(): { detail: RunDetail; probe: Map<number, ProbeSecond[]> } {
  const one = reps({ workers: 1 }, [10000, 10100, 9950]).map((c) => ({ ...c, stats: stats(2) }));
  const two = reps({ workers: 2 }, [8000, 8100, 7950]).map((c) => ({ ...c, stats: stats(30) }));
  const detail = run([...one, ...two]);
  const probe = new Map<number, ProbeSecond[]>();
  for (const c of detail.cells)
    probe.set(
      c.id,
      c.config.workers === 1
        ? seconds([primary, { pid: 11, role: 'worker', elu: 0.97, involuntary: 20 }])
        : seconds([primary, { pid: 11, role: 'worker', elu: 0.5, involuntary: 60 }, { pid: 12, role: 'worker', elu: 0.5, involuntary: 60 }]),
    );
  return { detail, probe };
}

describe('the lines of cause in the answer', () => {
  it('explains the pair: the second worker adds switching, not capacity — in the causes, the summary and the words', () => {
    const { detail, probe } = oversubscribed();
    const rec = recommend(detail, { probe });
    const why = rec.causes.find((c) => c.kind === 'oversubscribed');
    expect(why, JSON.stringify(rec.causes)).toBeDefined();
    expect(why!.scopeLabel).toBe('1 CPU / 256 MB');
    expect(why!.text).toMatch(/^2 cluster workers on 1 CPU: each event loop busy ~50 %, throttled in 30 % of periods, 6× the involuntary context switches of 1 cluster worker:/);
    expect(why!.text).toMatch(/the second worker adds switching, not capacity$/);
    expect(rec.summary[1]).toContain(`Why: ${why!.text}.`);
    expect(rec.words).toContain(`Why, on 1 CPU / 256 MB (runtime probe): ${why!.text}.`);
  });

  it('reads only the repetitions the decision counted: a host-busy one left out is not in the line', () => {
    const { detail, probe } = oversubscribed();
    // The third ×2 repetition was disturbed by the host (two undisturbed remain, so the decision leaves it
    // out); its loops read busier (they waited for the CPU the host took): 0.95 each instead of 0.5.
    const busy = detail.cells.filter((c) => c.config.workers === 2).at(-1)!;
    busy.flags = [...busy.flags, { kind: 'host-busy', reason: 'other processes took 30 % of core 0' }];
    probe.set(busy.id, seconds([primary, ...[11, 12].map((pid) => ({ pid, role: 'worker' as const, elu: 0.95, involuntary: 60 }))]));
    const rec = recommend(detail, { probe });
    expect(rec.exclusions.map((e) => e.cellIndex)).toEqual([busy.config.index]);
    const why = rec.causes.find((c) => c.kind === 'oversubscribed');
    expect(why?.text, JSON.stringify(rec.causes)).toMatch(/^2 cluster workers on 1 CPU: each event loop busy ~50 %,/);
  });

  it("says the pick's measured heap against its limit and its RSS, with the sizing words", () => {
    const { detail, probe } = oversubscribed();
    const rec = recommend(detail, { probe });
    const memory = rec.causes.find((c) => c.kind === 'memory');
    expect(memory?.text).toBe("each worker's heap peaked at 38 MB of its 2,096 MB limit (1.8 %), its RSS at 71 MB");
    expect(rec.sizingWords).toContain(`Memory, on 1 CPU / 256 MB (runtime probe): ${memory!.text}.`);
    expect(rec.words).toContain(`Memory, on 1 CPU / 256 MB (runtime probe): ${memory!.text}.`);
  });

  it('says nothing where nothing was probed', () => {
    const { detail } = oversubscribed();
    for (const rec of [recommend(detail), recommend(detail, { probe: new Map() })]) {
      expect(rec.causes).toEqual([]);
      expect(rec.summary.join(' ')).not.toContain('Why:');
      expect(rec.words.join(' ')).not.toContain('runtime probe');
    }
  });
});

describe('the client-bound rule, checked from the server side', () => {
  const cfg = reps({ workers: 1 }, [1])[0]!.config as CellConfig;
  const load = { clientBound: true, clientBoundReason: 'load thread busy 97 %', clientElu: 0.97 } as LoadResult;
  const probeOf = (elu: number) => ({
    attached: 2, expected: 2, processes: [], seconds: seconds([primary, { pid: 11, role: 'worker', elu, involuntary: 5 }]),
  });

  it('a load thread at its ceiling while the event loop was at its ceiling too: not a lower bound, and says why', () => {
    const out = checkClientBound(cfg, load, probeOf(0.96), stats(0));
    expect(out.clientBound).toBe(false);
    expect(out.clientBoundReason).toBeUndefined();
    expect(out.clientBoundOverruled).toMatch(/^a load thread was at its ceiling \(load thread busy 97 %\), but the server's event loops were busy 96 %: both sides were saturated/);
  });

  it('a load thread at its ceiling while the event loop had headroom: client-bound stands; no probe: unchanged', () => {
    expect(checkClientBound(cfg, load, probeOf(0.6), stats(0))).toBe(load);
    expect(checkClientBound(cfg, load, undefined, stats(0))).toBe(load);
    expect(checkClientBound(cfg, load, { attached: 0, expected: 2, processes: [], note: 'off' }, stats(0))).toBe(load);
  });

  it('a throttled container is at its ceiling too', () => {
    const out = checkClientBound(cfg, load, probeOf(0.6), stats(40));
    expect(out.clientBound).toBe(false);
    expect(out.clientBoundOverruled).toContain('and throttled in 40 % of periods');
  });

  it("the answer says an overruled pick's cause: not client-bound", () => {
    const { detail, probe } = oversubscribed();
    const cells: StoredCell[] = detail.cells.map((c) =>
      c.config.workers === 1 ? { ...c, load: { ...(c.load ?? {}), clientBoundOverruled: 'X: both sides were saturated' } as LoadResult } : c,
    );
    const rec = recommend({ ...detail, cells }, { probe });
    expect(rec.causes[0]).toMatchObject({ kind: 'not-client-bound', text: 'not client-bound: X: both sides were saturated' });
  });

  it('a pick still read as a lower bound is never said to be "not a lower bound": its cells are counted instead', () => {
    const { detail, probe } = oversubscribed();
    const flag = { kind: 'client-bound' as const, reason: 'load thread busy 97 %' };
    let seen = 0;
    const cells: StoredCell[] = detail.cells.map((c) => {
      if (c.config.workers !== 1) return c;
      // two repetitions stay client-bound (so stored with the client as their bottleneck), the third was overruled
      return seen++ < 2
        ? { ...c, flags: [flag], clientBound: true, bottleneck: 'client' }
        : { ...c, load: { clientBound: false, clientBoundOverruled: 'X: both sides were saturated' } as LoadResult };
    });
    const rec = recommend({ ...detail, cells }, { probe });
    expect(rec.scopes[0]!.lowerBounds).toContain(rec.scopes[0]!.knee.key);
    const line = rec.causes.find((c) => c.scope === rec.scopes[0]!.key && c.kind !== 'memory')!;
    expect(line.kind).toBe('client-bound');
    expect(line.text).toBe(
      'a lower bound: in 2 of its 3 repetitions a load thread was at its ceiling while the server had headroom; ' +
        'in 1 the probe saw the server at its ceiling too (those count as measured)',
    );
    expect(rec.summary.join(' ')).not.toContain('not a lower bound');
  });
});
