// Which HTTP/2 loads h2load sends (the rest stay on Node's client) and how its per-request log is read.
import { describe, expect, it } from 'vitest';
import { h2loadBinary, h2loadUnfit, parseH2loadLog } from '../../src-main/load/h2load-client.ts';
import { splitPlan } from '../../src-main/load/threads.ts';
import type { LoadPlan } from '../../src-main/load/protocol.ts';

const GET = { method: 'GET' as const, path: '/' };

describe('h2load sends what it can send as asked', () => {
  it('a closed loop of one fixed GET or POST', () => {
    expect(h2loadUnfit({ model: 'closed', requests: [GET] })).toBeUndefined();
    expect(h2loadUnfit({ model: 'closed', requests: [{ method: 'POST', path: '/o', body: '{"a":1}', status: 201 }] })).toBeUndefined();
  });

  it.each([
    [{ model: 'rate', requests: [GET] }, 'a constant rate (h2load paces connections, not requests)'],
    [{ model: 'closed', requests: [GET, { method: 'GET', path: '/b' }] }, 'several requests'],
    [{ model: 'closed', requests: [{ sequence: [GET] }] }, 'several requests'],
    [{ model: 'closed', requests: [{ method: 'PUT', path: '/' }] }, 'a PUT request'],
    [{ model: 'closed', requests: [{ method: 'GET', path: '/p/{{int 1 9}}' }] }, 'templates'],
    [{ model: 'closed', requests: [{ method: 'GET', path: '/', headers: { 'x-id': '{{uuid}}' } }] }, 'templates'],
    [{ model: 'closed', requests: [{ method: 'GET', path: '/', capture: { t: { json: '$.t' } } }] }, 'captures'],
    [{ model: 'closed', requests: [GET], replicas: 2 }, 'several replicas'],
    [{ model: 'closed', requests: [GET], tlsResume: true }, 'resumed TLS sessions (it offers none)'],
  ] as const)('not %j: %s', (p, why) => {
    expect(h2loadUnfit(p as Parameters<typeof h2loadUnfit>[0])).toBe(why);
  });

  it('only HTTP/2 plans get it, and not when Node\'s client is asked for', () => {
    const plan = (over: Partial<LoadPlan>, load: Partial<LoadPlan['load']> = {}): LoadPlan => ({
      host: 'h', port: 1, requests: [GET], durationSec: 1, warmupSec: 0, timeoutSec: 1, threads: 1,
      ...over, load: { model: 'closed', connections: 2, ...load } as LoadPlan['load'],
    });
    expect(splitPlan(plan({}))[0]!.h2load).toBeUndefined();
    expect(splitPlan(plan({ h2Client: 'node' }, { protocol: 'h2c' }))[0]!.h2load).toBeUndefined();
    // Wherever it is installed (CI installs nghttp2-client), an h2c plan of one GET is its.
    expect(splitPlan(plan({}, { protocol: 'h2c' }))[0]!.h2load).toBe(h2loadBinary());
    expect(splitPlan(plan({}, { protocol: 'h2c', model: 'rate', rate: 10 } as never))[0]!.h2load).toBeUndefined();
  });
});

describe("h2load's log", () => {
  it('reads start µs, status and duration µs into end time and duration in ms; a failed stream is -1', () => {
    const text = '1796163888470193\t200\t8604\n1796163888478867\t-1\t2271\n';
    expect(parseH2loadLog(text)).toEqual([
      { endMs: 1796163888470193 / 1000 + 8.604, status: 200, durationMs: 8.604 },
      { endMs: 1796163888478867 / 1000 + 2.271, status: -1, durationMs: 2.271 },
    ]);
  });

  it('skips a line cut short (the rest is read next time)', () => {
    expect(parseH2loadLog('1796163888470193\t200\n')).toEqual([]);
  });
});
