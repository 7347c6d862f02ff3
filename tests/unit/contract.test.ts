import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALL_NAMES, callChannel, STREAM_CHANNELS, STREAM_NAMES, type StreamServerMessage } from '../../src-main/contract/api.ts';
import { CALL_INPUTS, STREAM_INPUTS } from '../../src-main/contract/schemas.ts';
import { registerIpc, type IpcMainLike, type IpcSender } from '../../src-main/transports/ipc-main.ts';
import type { Lab } from '../../src-main/service/lab.ts';
import type { RunningServer } from '../../src-main/transports/http-server.ts';
import { httpCall, openSocket, serveLab } from '../helpers/lab.ts';

// The Electron binary cannot exist on this machine, so the IPC transport is driven through a
// stand-in for ipcMain/WebContents with the same shape (IpcMainLike). Everything behind it is real.
class FakeIpcMain implements IpcMainLike {
  handlers = new Map<string, (e: { sender: IpcSender }, input: unknown) => Promise<unknown>>();
  listeners = new Map<string, (e: { sender: IpcSender }, m: never) => void>();
  handle(channel: string, fn: (e: { sender: IpcSender }, input: unknown) => Promise<unknown>): void {
    if (this.handlers.has(channel)) throw new Error(`second handler for ${channel}`); // as Electron does
    this.handlers.set(channel, fn);
  }
  on(channel: string, fn: (e: { sender: IpcSender }, m: never) => void): void {
    this.listeners.set(channel, fn);
  }
}
class FakeSender implements IpcSender {
  sent: StreamServerMessage[] = [];
  private onDestroyed: (() => void)[] = [];
  constructor(readonly id: number) {}
  send(_channel: string, m: StreamServerMessage): void {
    this.sent.push(m);
  }
  once(_e: 'destroyed', fn: () => void): void {
    this.onDestroyed.push(fn);
  }
  destroy(): void {
    for (const f of this.onDestroyed) f();
  }
}

let lab: Lab;
let server: RunningServer;
let close: () => Promise<void>;
const ipc = new FakeIpcMain();

beforeAll(async () => {
  ({ lab, server, close } = await serveLab());
  registerIpc(ipc, lab);
});
afterAll(async () => close?.());

describe('the contract is complete', () => {
  it('every call has an input schema and an engine handler', () => {
    expect(Object.keys(CALL_INPUTS).sort()).toEqual([...CALL_NAMES].sort());
    expect(Object.keys(lab.handlers).sort()).toEqual([...CALL_NAMES].sort());
    expect(Object.keys(STREAM_INPUTS).sort()).toEqual([...STREAM_NAMES].sort());
  });

  it('matrix and size checks take an optional saved target, as their runs do', () => {
    for (const [check, key] of [['matrix.validate', 'matrix'], ['size.validate', 'spec']] as const) {
      expect(CALL_INPUTS[check].safeParse({ [key]: {}, target: 'lab-k8s' }).success).toBe(true);
      expect(CALL_INPUTS[check].safeParse({ [key]: {} }).success).toBe(true);
      expect(CALL_INPUTS[check].safeParse({ [key]: {}, target: '' }).success).toBe(false);
    }
  });

  it('IPC registers exactly one handler per call, on channels derived from the names', () => {
    expect([...ipc.handlers.keys()].sort()).toEqual(CALL_NAMES.map(callChannel).sort());
    expect([...ipc.listeners.keys()].sort()).toEqual([STREAM_CHANNELS.subscribe, STREAM_CHANNELS.unsubscribe].sort());
  });
});

describe.each(CALL_NAMES)('%s', (name) => {
  it('IPC: a malformed payload gets a validation error with fields', async () => {
    const r = (await ipc.handlers.get(callChannel(name))!({ sender: new FakeSender(1) }, 42)) as { ok: boolean; error?: { code: string; fields?: unknown[] } };
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe('INVALID_INPUT');
    expect(r.error?.fields?.length).toBeGreaterThan(0);
  });
  it('HTTP: a malformed payload gets a validation error with fields', async () => {
    const r = await httpCall(server, name, 42);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('INVALID_INPUT');
      expect(r.error.fields?.length).toBeGreaterThan(0);
    }
  });
});

describe('transports behave the same', () => {
  it('a valid call answers identically over IPC and HTTP', async () => {
    const viaIpc = await ipc.handlers.get(callChannel('presets.list'))!({ sender: new FakeSender(1) }, {});
    const viaHttp = await httpCall(server, 'presets.list', {});
    expect(viaHttp).toEqual(viaIpc);
    expect((viaHttp as { ok: true; value: { name: string }[] }).value[0]!.name).toBe('quick');
  });

  it('errors come back as field-by-field data (an invalid matrix)', async () => {
    const r = await httpCall(server, 'matrix.validate', { matrix: { apps: ['nope'], modes: ['cluster'], workers: [0], cpuMillicores: [100], memoryMb: [256] } });
    expect(r).toMatchObject({ ok: true, value: { ok: false, cells: 0 } });
    const problems = (r as { value: { problems: { path: string }[] } }).value.problems.map((p) => p.path);
    expect(problems).toEqual(['apps', 'workers']);
  });

  it('NOT_FOUND and UNKNOWN_CALL are distinct codes', async () => {
    expect(await httpCall(server, 'runs.get', { runId: 999 })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await httpCall(server, 'no.such', {})).toMatchObject({ ok: false, error: { code: 'UNKNOWN_CALL' } });
  });

  it('settings round-trip through the store', async () => {
    expect(await httpCall(server, 'settings.set', { baseImage: 'offline' })).toEqual({ ok: true, value: { baseImage: 'offline' } });
    expect(await httpCall(server, 'settings.get', {})).toEqual({ ok: true, value: { baseImage: 'offline' } });
    expect(await httpCall(server, 'settings.set', { baseImage: 'bogus' })).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
  });
});

// The engine's event bus, reached into so a test can count listeners and emit a status change.
const bus = (): { listenerCount(e: string): number; emit(e: string, v: unknown): boolean } => (lab as unknown as { bus: { listenerCount(e: string): number; emit(e: string, v: unknown): boolean } }).bus;
const statusChange = (marker: string): void => void bus().emit('status', { marker });

describe('streams', () => {
  it('IPC: a subscription gets events, stops on unsubscribe, and stops when its window goes away', async () => {
    const sender = new FakeSender(7);
    const sub = ipc.listeners.get(STREAM_CHANNELS.subscribe)!;
    const unsub = ipc.listeners.get(STREAM_CHANNELS.unsubscribe)!;
    const before = bus().listenerCount('status');
    sub({ sender }, { op: 'subscribe', id: 1, stream: 'engine.status', input: {} } as never);
    expect(sender.sent[0]).toMatchObject({ op: 'event', id: 1, event: { limits: { minMemoryMb: 32 } } });
    sub({ sender }, { op: 'subscribe', id: 2, stream: 'run.progress', input: { runId: 'x' } } as never);
    expect(sender.sent[1]).toMatchObject({ op: 'error', id: 2, error: { code: 'INVALID_INPUT' } });
    sub({ sender }, { op: 'subscribe', id: 3, stream: 'engine.status', input: {} } as never);
    expect(bus().listenerCount('status')).toBe(before + 2);

    unsub({ sender }, { op: 'unsubscribe', id: 1 } as never);
    expect(bus().listenerCount('status')).toBe(before + 1);
    statusChange('after unsubscribe');
    const changes = sender.sent.filter((m) => m.op === 'event' && (m as { event: { marker?: string } }).event.marker === 'after unsubscribe');
    expect(changes.map((m) => m.id)).toEqual([3]); // the change reached the live subscription only

    sender.destroy();
    expect(bus().listenerCount('status')).toBe(before);
  });

  it('WebSocket: subscribe, receive the current status and its changes, unsubscribe, receive no more', async () => {
    const s = await openSocket(server);
    const before = bus().listenerCount('status');
    s.send({ op: 'subscribe', id: 5, stream: 'engine.status', input: {} });
    const got = await s.until((m) => m.length > 0);
    expect(got[0]).toMatchObject({ op: 'event', id: 5 });
    s.send({ op: 'subscribe', id: 6, stream: 'nope', input: {} });
    expect((await s.until((m) => m.length > 1))[1]).toMatchObject({ op: 'error', id: 6, error: { code: 'UNKNOWN_CALL' } });
    statusChange('while subscribed');
    await s.until((m) => m.some((x) => x.id === 5 && (x as { event?: { marker?: string } }).event?.marker === 'while subscribed'));

    // Messages on one socket are handled in order: once subscription 7's first event is here, 5 is gone.
    s.send({ op: 'unsubscribe', id: 5 });
    s.send({ op: 'subscribe', id: 7, stream: 'engine.status', input: {} });
    await s.until((m) => m.some((x) => x.id === 7));
    expect(bus().listenerCount('status')).toBe(before + 1);
    statusChange('after unsubscribe');
    const after = await s.until((m) => m.some((x) => x.id === 7 && (x as { event?: { marker?: string } }).event?.marker === 'after unsubscribe'));
    expect(after.filter((x) => (x as { event?: { marker?: string } }).event?.marker === 'after unsubscribe').map((x) => x.id)).toEqual([7]);
    s.ws.close();
  });
});

describe('serve refuses strangers', () => {
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers, redirect: 'manual' });

  it('no token, a wrong token: 401', async () => {
    expect((await get('/')).status).toBe(401);
    expect((await get('/?token=wrong')).status).toBe(401);
    const r = await fetch(`${server.url}/api/call/runs.list`, { method: 'POST', body: '{}' });
    expect(r.status).toBe(401);
    expect(await r.text()).toMatch(/open the URL that `rightsize serve` printed/);
  });

  it('a foreign Origin: 403, even with the token', async () => {
    const r = await fetch(`${server.url}/api/call/runs.list`, { method: 'POST', body: '{}', headers: { authorization: `Bearer ${server.token}`, origin: 'http://evil.example' } });
    expect(r.status).toBe(403);
  });

  it('a foreign Host (DNS rebinding): 421', async () => {
    const http = await import('node:http');
    const status = await new Promise<number>((resolve) => {
      const u = new URL(server.url);
      http.get({ host: u.hostname, port: u.port, path: `/?token=${server.token}`, headers: { host: 'evil.example' } }, (res) => resolve(res.statusCode!));
    });
    expect(status).toBe(421);
  });

  it('the token in the URL becomes an HttpOnly, SameSite=Strict cookie', async () => {
    const r = await get(`/?token=${server.token}`);
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toBe('/');
    expect(r.headers.get('set-cookie')).toMatch(/rightsize_token=.+; HttpOnly; SameSite=Strict/);
  });

  it('the stream socket needs the token and our Origin', async () => {
    await expect(openSocket(server, {})).rejects.toThrow('refused: 401');
    await expect(openSocket(server, { cookie: `rightsize_token=${server.token}`, origin: 'http://evil.example' })).rejects.toThrow('refused: 403');
  });
});
