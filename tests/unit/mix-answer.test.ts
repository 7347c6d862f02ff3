// What the answer and the flags make of a mix's routes: the route that sets the p99 (decide/routes.ts),
// and a cell whose realised shares strayed from the weights (mix-off).
import { describe, expect, it } from 'vitest';
import { slowestRoute } from '../../src-main/analysis/decide/routes.ts';
import { cellFlags } from '../../src-main/engine/flags.ts';
import type { LoadResult, RouteResult } from '../../src-main/model/types.ts';

const route = (name: string, p99Us: number, share = 0.5, expectedShare = share): RouteResult => ({
  route: name, sent: 1000, share, expectedShare, requests: 1000, good: 1000, goodputMean: 200, p50Us: p99Us / 4, p99Us,
});
const load = (routes: RouteResult[], measuredSec = 5): LoadResult => ({
  model: 'closed', connections: 8, measuredSec, requests: 10_000, bytes: 0, rpsMean: 2000, rpsStddev: 10, bytesPerSec: 0,
  latencyUs: { p50: 1, p75: 1, p90: 1, p97_5: 1, p99: 1, p99_9: 1, max: 1, mean: 1, stddev: 0 }, latencyFrom: 'send',
  statusCounts: { 200: 10_000 }, errors: 0, timeouts: 0, non2xx: 0, clientElu: 0.3, clientBound: false, routes,
});

describe('the route that sets the p99', () => {
  it('is the slowest by the median of its repetitions, against the next slowest', () => {
    const cells = [
      { load: load([route('GET /a', 6000, 0.9), route('POST /orders', 41_000, 0.1)]) },
      { load: load([route('GET /a', 5000, 0.9), route('POST /orders', 39_000, 0.1)]) },
      { load: load([route('GET /a', 7000, 0.9), route('POST /orders', 90_000, 0.1)]) },
    ];
    expect(slowestRoute(cells)).toEqual({ route: 'POST /orders', p99Us: 41_000, othersP99Us: 6000, share: 0.1 });
  });

  it('is nothing without a mix of two or more answered routes', () => {
    expect(slowestRoute([{ load: load([]) }])).toBeNull();
    expect(slowestRoute([{ load: load([route('GET /a', 5000), { ...route('GET /b', 0), requests: 0 }]) }])).toBeNull();
  });
});

describe('the mix-off flag', () => {
  it('flags a cell of 5 s or more whose shares strayed more than 2 points from the weights, naming the route', () => {
    const off = cellFlags(load([route('GET /a', 1, 0.63, 0.6), route('GET /b', 1, 0.37, 0.4)]), undefined, undefined, 256);
    expect(off).toContainEqual({
      kind: 'mix-off',
      reason: 'GET /a got 63.0 % of requests, its weight asks 60.0 %; GET /b got 37.0 % of requests, its weight asks 40.0 %',
    });
  });

  it('leaves a cell within 2 points, or shorter than 5 s, unflagged', () => {
    const kinds = (l: LoadResult): string[] => cellFlags(l, undefined, undefined, 256).map((f) => f.kind);
    expect(kinds(load([route('GET /a', 1, 0.615, 0.6), route('GET /b', 1, 0.385, 0.4)]))).not.toContain('mix-off');
    expect(kinds(load([route('GET /a', 1, 0.7, 0.6), route('GET /b', 1, 0.3, 0.4)], 3))).not.toContain('mix-off');
  });
});
