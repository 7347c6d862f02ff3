import { writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Lab } from '../../src-main/service/lab.ts';
import { hostNames, MAX_BODY, splitHost, startServer, type RunningServer } from '../../src-main/transports/http-server.ts';
import { tempDir } from '../helpers/cli.ts';
import { request } from '../helpers/http.ts';

// Each request that used to throw inside `rightsize serve` (and so end the process) gets a 4xx
// here, and the server answers the next request. In-process, so a throw would fail this file.

let lab: Lab;
let server: RunningServer;
let port: number;
const auth = (): Record<string, string> => ({ authorization: `Bearer ${server.token}` });

/** Raw bytes on a fresh socket; resolves with what came back when the server closes or goes quiet. */
function raw(bytes: string | Buffer, quietMs = 300): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let got = '';
    let timer: NodeJS.Timeout | undefined;
    const done = (): void => {
      clearTimeout(timer);
      s.destroy();
      resolve(got);
    };
    s.on('data', (d) => {
      got += d.toString('latin1');
      clearTimeout(timer);
      timer = setTimeout(done, quietMs);
    });
    s.on('error', done);
    s.on('close', done);
    s.write(bytes);
    timer = setTimeout(done, quietMs * 3);
  });
}
const alive = async (): Promise<void> => {
  expect((await request('127.0.0.1', port, { method: 'POST', path: '/api/call/engine.status', headers: auth(), body: '{}' })).status).toBe(200);
};

beforeAll(async () => {
  lab = await Lab.open({ dbPath: path.join(tempDir(), 'http.db') });
  const ui = tempDir();
  writeFileSync(path.join(ui, 'index.html'), '<!doctype html>');
  server = await startServer({ lab, port: 0, staticDir: ui });
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server.close();
  await lab.close();
});

describe('requests that used to end the process', () => {
  it('a request target `http://[` gets 400 before any token check', async () => {
    expect(await raw(`GET http://[ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 400/);
    await alive();
  });

  it('a bad % escape in a static path gets 400 (with the token)', async () => {
    expect((await request('127.0.0.1', port, { path: '/%E0%A4%A', headers: auth() })).status).toBe(400);
    expect(await raw(`GET /% HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${server.token}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 400/);
    expect((await request('127.0.0.1', port, { path: '/', headers: auth() })).status).toBe(200);
    await alive();
  });

  it('an aborted POST body is dropped quietly', async () => {
    await raw(`POST /api/call/matrix.validate HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${server.token}\r\nContent-Length: 1000\r\n\r\n{"matrix":`, 50);
    await alive();
  });

  it('a WebSocket message `null`, a non-object and a bad frame each get an error or a closed socket', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/stream`, { headers: auth() });
    await new Promise((r) => ws.once('open', r));
    const got: { op: string; id: number; error?: { code: string } }[] = [];
    ws.on('message', (d) => got.push(JSON.parse(String(d))));
    for (const m of ['null', '42', '"x"', '[]', '{}', '{"op":"subscribe","id":1,"stream":{"toString":1}}', 'not json']) ws.send(m);
    ws.send(Buffer.from([1, 2, 3]), { binary: true });
    await new Promise<void>((resolve) => {
      const t = setInterval(() => got.length >= 8 && (clearInterval(t), resolve()), 20);
    });
    expect(got.every((m) => m.op === 'error' && m.error?.code === 'INVALID_INPUT')).toBe(true);
    ws.close();
    // A frame with a reserved opcode: ws closes the socket with 1002; the server goes on.
    const s = net.connect(port, '127.0.0.1');
    s.on('error', () => {});
    s.write(`GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${server.token}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
    await new Promise((r) => s.once('data', r));
    s.write(Buffer.from([0x83, 0x80, 0, 0, 0, 0]));
    await new Promise((r) => s.once('close', r));
    await alive();
  });

  it(`a body over ${MAX_BODY} bytes gets 413, declared or not`, async () => {
    const big = 'x'.repeat(MAX_BODY + 1);
    expect((await request('127.0.0.1', port, { method: 'POST', path: '/api/call/matrix.validate', headers: { ...auth(), 'content-length': String(big.length) }, body: big })).status).toBe(413);
    const chunked = await raw(Buffer.concat([Buffer.from(`POST /api/call/matrix.validate HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${server.token}\r\nTransfer-Encoding: chunked\r\n\r\n${(MAX_BODY + 10).toString(16)}\r\n`), Buffer.alloc(MAX_BODY + 10, 'x'), Buffer.from('\r\n0\r\n\r\n')]));
    expect(chunked).toMatch(/^HTTP\/1\.1 413/);
    await alive();
  });

  it('unparseable HTTP gets 400, oversized headers 431', async () => {
    expect(await raw('\u0000\u0001 garbage\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
    expect(await raw(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431/);
    await alive();
  });

  it('the token-for-cookie redirect never leaves the site', async () => {
    const r = await request('127.0.0.1', port, { path: `//evil.example/x?token=${server.token}` });
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe('/x');
  });
});

describe('which Host a server answers to', () => {
  it('parses host headers, and refuses what is not one', () => {
    expect(splitHost('Example:80')).toEqual({ name: 'example', port: 80 });
    expect(splitHost('[::1]:5180')).toEqual({ name: '[::1]', port: 5180 });
    expect(splitHost('10.0.0.2')).toEqual({ name: '10.0.0.2', port: null });
    for (const bad of ['', 'a b', 'user@host:1', 'host:99999999', '[::1', 'host:port', 'a/b']) expect(splitHost(bad), bad).toBeNull();
  });

  it('on loopback: only this machine’s loopback names', () => {
    const names = hostNames('127.0.0.1', { hostname: 'lab-box', interfaces: { eth0: [{ address: '192.168.1.20' } as os.NetworkInterfaceInfo] } });
    expect([...names].sort()).toEqual(['127.0.0.1', '[::1]', 'localhost']);
  });

  it('on all addresses: also the machine’s name and every interface address, never another name', () => {
    const names = hostNames('0.0.0.0', {
      hostname: 'Lab-Box.corp.example',
      interfaces: { eth0: [{ address: '192.168.1.20' } as os.NetworkInterfaceInfo, { address: 'fe80::1%eth0' } as os.NetworkInterfaceInfo] },
    });
    for (const n of ['lab-box.corp.example', 'lab-box', 'lab-box.local', '192.168.1.20', '[fe80::1]', 'localhost', '127.0.0.1', '[::1]']) expect(names.has(n), n).toBe(true);
    expect(names.has('evil.example')).toBe(false);
  });

  it('`--host 0.0.0.0` answers requests addressed to the machine’s name and LAN address (with the token)', async () => {
    const open = await startServer({ lab, host: '0.0.0.0', port: 0 });
    const p = Number(new URL(open.url).port);
    const lan = Object.values(os.networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    try {
      const call = (host: string, connectTo = '127.0.0.1', token = open.token) =>
        request(connectTo, p, { method: 'POST', path: '/api/call/engine.status', headers: { host, authorization: `Bearer ${token}` }, body: '{}' });
      expect((await call(`${os.hostname()}:${p}`)).status).toBe(200);
      expect((await call(`${os.hostname().toUpperCase()}:${p}`)).status).toBe(200);
      if (lan) expect((await call(`${lan}:${p}`, lan)).status).toBe(200);
      expect((await call(`evil.example:${p}`)).status).toBe(421); // DNS rebinding: a name we are not
      expect((await call(`${os.hostname()}:${p + 1}`)).status).toBe(421);
      expect((await call(`${os.hostname()}:${p}`, '127.0.0.1', 'wrong')).status).toBe(401);
      const cross = await request('127.0.0.1', p, { method: 'POST', path: '/api/call/engine.status', headers: { host: `${os.hostname()}:${p}`, origin: 'http://evil.example', authorization: `Bearer ${open.token}` }, body: '{}' });
      expect(cross.status).toBe(403);
      const same = await request('127.0.0.1', p, { method: 'POST', path: '/api/call/engine.status', headers: { host: `${os.hostname()}:${p}`, origin: `http://${os.hostname()}:${p}`, authorization: `Bearer ${open.token}` }, body: '{}' });
      expect(same.status).toBe(200);
    } finally {
      await open.close();
    }
  });
});
