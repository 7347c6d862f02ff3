import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Address } from '../../src-main/docker/containers.ts';
import { waitReady } from '../../src-main/docker/readiness.ts';

// Real sockets on localhost: a server whose health answers are scripted by the time since it started.
let server: http.Server | undefined;
afterEach(() => server?.close());

async function serve(status: (ms: number) => number): Promise<Address> {
  const t0 = performance.now();
  server = http.createServer((_req, res) => {
    res.statusCode = status(performance.now() - t0);
    res.end();
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { host: '127.0.0.1', port: (server.address() as AddressInfo).port, via: 'published' };
}

const ready = (addr: Address, over: Partial<Parameters<typeof waitReady>[1]> = {}) =>
  waitReady(addr, { path: '/health', processes: 1, deadlineMs: 20_000, definiteMs: 400, ...over });

describe('readiness', () => {
  it('a health path that keeps answering 404 is wrong: it fails once the answer has stayed so, long before the deadline', async () => {
    const t0 = performance.now();
    await expect(ready(await serve(() => 404))).rejects.toThrow(/same answer for \d+ s: a path the app does not serve \(health answered 404\)/);
    expect(performance.now() - t0).toBeLessThan(10_000);
  });

  it('a 503 while the app starts is waited out, and so is a 429: only a lasting client error is final', async () => {
    for (const starting of [503, 429]) {
      const r = await ready(await serve((ms) => (ms < 800 ? starting : 200)));
      expect(r.pids).toBe(1);
      server!.close();
    }
  });

  it('a 404 that turns into a 200 before it has lasted is not final', async () => {
    const r = await ready(await serve((ms) => (ms < 200 ? 404 : 200)), { definiteMs: 5000 });
    expect(r.pids).toBe(1);
  });

  it('a 503 to the end fails at the deadline, with the last answer', async () => {
    await expect(ready(await serve(() => 503), { deadlineMs: 600 })).rejects.toThrow(/not ready within 1 s \(health answered 503\)/);
  });
});
