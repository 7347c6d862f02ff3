// From the load side's verdict to the words: a busy load thread with every connection busy (and
// nothing showing the thread saturated first) is a saturated server, one cause: the cell is not
// client-bound, and the answer never says the server may be faster.
import { describe, expect, it } from 'vitest';
import { recommend } from '../../src-main/analysis/index.ts';
import { attribute } from '../../src-main/load/attribution.ts';
import type { LoadResult } from '../../src-main/model/types.ts';
import type { StoredCell } from '../../src-main/store/index.ts';
import { reps, run } from '../helpers/run-fixture.ts';

const rate = { model: 'rate' as const, rate: 1000, connections: 10 };

function asMeasured(c: StoredCell, verdict: ReturnType<typeof attribute>): StoredCell {
  const load = {
    model: 'rate', connections: 10, targetRate: 1000, measuredSec: 10, requests: c.requests ?? 0, bytes: 0, rpsMean: c.rpsMean!, rpsStddev: 1, bytesPerSec: 0,
    latencyUs: { p50: 9000, p75: 10000, p90: 11000, p97_5: 12000, p99: 13000, p99_9: 14000, max: 15000, mean: 12000, stddev: 1000 },
    latencyFrom: 'intended-send', statusCounts: {}, errors: 0, timeouts: 0, non2xx: 0, clientElu: 0.95, clientBound: verdict.clientBound,
    ...(verdict.clientBoundReason ? { clientBoundReason: verdict.clientBoundReason } : {}), ...(verdict.shortfallBy ? { shortfallBy: verdict.shortfallBy } : {}),
  } satisfies LoadResult;
  return { ...c, clientBound: verdict.clientBound, load, flags: verdict.clientBound ? [{ kind: 'client-bound', reason: verdict.clientBoundReason! }] : [] };
}

describe('busy thread, every connection busy', () => {
  // 1,000 req/s × 12 ms = 12 connections needed of 10.
  const input = { targetRate: 1000, connections: 10, rpsMean: 700, sentPerSec: 700, meanServiceMs: 12, threadElu: [0.95] };

  it('every candidate: the server set the pace, never "the server may be faster"', () => {
    const verdict = attribute(input);
    expect(verdict).toEqual({ clientBound: false, shortfallBy: 'server' });
    const rec = recommend(run([
      ...reps({ workers: 1, load: rate }, [700, 705]).map((c) => asMeasured(c, verdict)),
      ...reps({ workers: 2, load: rate }, [710, 715]).map((c) => asMeasured(c, verdict)),
    ]));
    const words = rec.words.join(' ');
    expect(words).toMatch(/every connection waiting on the server: the server was saturated/);
    expect(words).not.toMatch(/may be faster/);
    expect(words).not.toMatch(/load generator, not the server, set the ceiling/);
  });

  it('the thread busy in an earlier second: the client, and then the words do say so', () => {
    const verdict = attribute({ ...input, perSecond: [{ maxThreadCpuMs: 960, meanServiceMs: 5 }, { maxThreadCpuMs: 960, meanServiceMs: 12 }] });
    expect(verdict).toMatchObject({ clientBound: true, shortfallBy: 'client' });
    const rec = recommend(run(reps({ workers: 1, load: rate }, [700, 705]).map((c) => asMeasured(c, verdict))));
    expect(rec.words.join(' ')).toMatch(/load generator/);
  });
});
