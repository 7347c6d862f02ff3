// HTTP/2 load (issue 44) against real HTTP/2 servers (child processes on 127.0.0.1, no Docker): h2c in clear and h2
// over TLS, each server counting what it answered. The load's own counts must be the server's (never more), every
// connection opened once, the streams really in flight at once (the server sees them), latency measured per
// request, and a constant rate kept; a mix's POST with its body reaches the server and is judged by its status.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { h2loadBinary } from '../../src-main/load/h2load-client.ts';
import { runLoad, type LoadPlan } from '../../src-main/load/runner.ts';
import { runCertificate } from '../../src-main/tls/certificate.ts';

/**
 * Answers after DELAY ms (argv[1]) over h2 (TLS: RS_TLS_CERT/RS_TLS_KEY) or h2c; counts what it answered and the
 * most streams it had open at once; `/count` says both (not counted); POST /orders answers 201 with the body's size;
 * `/hang` is never answered; `/bye` is answered, then its connection closed.
 */
const SERVER = `
const http2 = require('http2');
const delay = Number(process.argv[1]);
let n = 0, open = 0, most = 0;
const handler = (req, res) => {
  if (req.url === '/count') return res.end(JSON.stringify({ n, most }));
  if (req.url === '/hang') return; // never answered
  if (req.url === '/bye') { res.end('bye'); return req.stream.session.close(); } // the connection ends after it
  open++; most = Math.max(most, open);
  let body = 0;
  req.on('data', (c) => (body += c.length));
  req.on('end', () => setTimeout(() => {
    open--; n++;
    if (req.method === 'POST') { res.writeHead(201, { 'content-type': 'application/json' }); res.end(JSON.stringify({ body })); }
    else res.end('ok');
  }, delay));
};
const tls = process.env.RS_TLS_CERT;
const server = tls ? http2.createSecureServer({ cert: tls, key: process.env.RS_TLS_KEY, allowHTTP1: true }, handler) : http2.createServer(handler);
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;
const DELAY_MS = 5;

const servers: ChildProcess[] = [];
const port: Record<'h2' | 'h2c', number> = { h2: 0, h2c: 0 };
beforeAll(async () => {
  const pem = await runCertificate('http2-load');
  for (const p of ['h2', 'h2c'] as const) {
    const env = p === 'h2' ? { RS_TLS_CERT: pem.cert, RS_TLS_KEY: pem.key } : {};
    const s = spawn(process.execPath, ['-e', SERVER, String(DELAY_MS)], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
    servers.push(s);
    port[p] = Number(await new Promise<string>((resolve) => s.stdout!.once('data', (d) => resolve(String(d)))));
  }
});
afterAll(() => servers.forEach((s) => s.kill()));

/** The server's counts, over its own protocol. */
async function served(p: 'h2' | 'h2c'): Promise<{ n: number; most: number }> {
  const http2 = await import('node:http2');
  const session = http2.connect(`${p === 'h2' ? 'https' : 'http'}://127.0.0.1:${port[p]}`, { rejectUnauthorized: false });
  try {
    return await new Promise((resolve, reject) => {
      const req = session.request({ ':path': '/count' });
      let text = '';
      req.on('data', (c: Buffer) => (text += c));
      req.on('end', () => resolve(JSON.parse(text)));
      req.on('error', reject);
      req.end();
    });
  } finally {
    session.close();
  }
}

const plan = (p: 'h2' | 'h2c', load: LoadPlan['load'], over: Partial<LoadPlan> = {}): LoadPlan => ({
  host: '127.0.0.1',
  port: port[p],
  requests: [{ method: 'GET', path: '/' }],
  durationSec: 2,
  warmupSec: 0,
  timeoutSec: 10,
  threads: 1,
  ...over,
  load: { ...load, protocol: p, ...(p === 'h2' ? { tls: true as const } : {}) },
});

// Both clients: h2load where it can send the load (Debian's nghttp2-client; .ci/run installs it), Node's elsewhere
// (its h2 over TLS: the constant-rate case below).
const CLIENTS = [
  ['h2c', 'h2load'],
  ['h2', 'h2load'],
  ['h2c', 'node'],
] as const;

describe('HTTP/2 load against a real server', () => {
  it('h2load is installed here, so the closed-loop cases below measure it (apt-get install nghttp2-client)', () => {
    expect(h2loadBinary()).toBeDefined();
  });

  it.each(CLIENTS)('%s from %s, closed loop, 4 connections × 8 streams: counted as the server counts, each connection opened once, 8 streams in flight', async (p, client) => {
    const before = await served(p);
    let opened = 0;
    const over = client === 'node' ? { h2Client: 'node' as const } : {};
    const r = await runLoad(plan(p, { model: 'closed', connections: 4, streams: 8 }, over), { onSecond: (s) => (opened += s.opened ?? 0) });
    const after = await served(p);
    const answered = after.n - before.n;
    console.log(`${p} (${r.h2Client}): ${r.requests} responses measured (${r.rpsMean.toFixed(0)} req/s), ${answered} served, at most ${after.most} streams open; p50 ${r.latencyUs.p50} µs; ${r.bytes} bytes`);
    expect(r.h2Client).toBe(client);
    expect(r.bytes).toBeGreaterThan(r.requests * 2); // 'ok' and its frames: read from the sockets, not assumed
    expect(r.errors + r.timeouts + r.non2xx).toBe(0);
    expect(r.requests).toBeGreaterThan(0);
    // The server also answered what came after the last measured second (until the thread stopped): an upper bound.
    expect(r.requests).toBeLessThanOrEqual(answered);
    // 32 requests in flight each wait 5 ms: far more than one connection's one-at-a-time could do (4 / 5 ms = 800/s).
    expect(r.rpsMean).toBeGreaterThan(1600);
    expect(after.most).toBeGreaterThanOrEqual(16);
    expect(r.latencyUs.p50).toBeGreaterThanOrEqual(DELAY_MS * 1000);
    expect(opened).toBe(4); // no warm-up: each connection opens in the first second, and stays open
  });

  it('h2 at a constant 300 req/s over 4 connections: the rate kept, latency from the intended send (Node\'s client: h2load paces connections, not requests)', async () => {
    const r = await runLoad(plan('h2', { model: 'rate', rate: 300, connections: 4 }, { durationSec: 3 }));
    expect(r.h2Client).toBe('node');
    expect(r.latencyFrom).toBe('intended-send');
    expect(r.errors + r.timeouts + r.non2xx).toBe(0);
    expect(r.rpsMean).toBeGreaterThan(270);
    expect(r.rpsMean).toBeLessThan(330);
    expect(r.latencyUs.p50).toBeGreaterThanOrEqual(DELAY_MS * 1000);
  });

  it.each(['node', 'h2load'] as const)('requests never answered time out (%s), counted as timeouts, and their streams go to the next requests', async (client) => {
    const over = { requests: [{ method: 'GET' as const, path: '/hang' }], durationSec: 3, timeoutSec: 1, ...(client === 'node' ? { h2Client: 'node' as const } : {}) };
    const r = await runLoad(plan('h2c', { model: 'closed', connections: 2, streams: 2 }, over));
    console.log(`h2c /hang (${r.h2Client}): ${r.timeouts} timeouts, ${r.errors} errors, ${r.requests} responses in 3 s`);
    expect(r.h2Client).toBe(client);
    expect(r.requests).toBe(0);
    expect(r.errors).toBe(0);
    // 4 streams each give up after 1 s and send again: about 4 a second, checked by a sweep every half second.
    expect(r.timeouts).toBeGreaterThanOrEqual(4);
    expect(r.timeouts).toBeLessThanOrEqual(16);
  });

  it("a mix's POST with a JSON body: sent whole over HTTP/2 and judged by its expected status", async () => {
    const r = await runLoad(
      plan('h2c', { model: 'closed', connections: 2 }, {
        requests: [{ method: 'POST', path: '/orders', headers: { 'content-type': 'application/json' }, body: '{"item":7}', status: 201 }],
      }),
    );
    expect(r.h2Client).toBe('h2load'); // a fixed POST: h2load sends the body file
    expect(r.statusCounts).toEqual({ '201': r.requests });
    expect(r.non2xx + r.errors).toBe(0);
    expect(r.goodputMean).toBeCloseTo(r.rpsMean, 5);
  });

  it('a server that closes its connections: h2load, which does not open them again, stops the cell with words; Node\'s client opens them again', async () => {
    const bye = (over: Partial<LoadPlan>): LoadPlan => plan('h2c', { model: 'closed', connections: 2 }, { requests: [{ method: 'GET', path: '/bye' }], ...over });
    await expect(runLoad(bye({}))).rejects.toThrow(/closed \d of 2 HTTP\/2 connections, and h2load .* does not open them again/);
    const r = await runLoad(bye({ h2Client: 'node' }));
    expect(r.h2Client).toBe('node');
    expect(r.requests).toBeGreaterThan(10); // one answer a connection, then a new connection: many in 2 s
  });
});
