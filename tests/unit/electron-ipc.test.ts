import { EventEmitter } from 'node:events';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_CHANNELS, type StreamServerMessage } from '../../src-main/contract/api.ts';
import { Lab } from '../../src-main/service/lab.ts';
import { MAX_SUBSCRIPTIONS } from '../../src-main/transports/dispatch.ts';
import { registerIpc, replacesPage, type IpcMainLike, type IpcSender, type NavigationStart } from '../../src-main/transports/ipc-main.ts';
import { tempDir } from '../helpers/cli.ts';

// The Electron binary cannot be downloaded on this machine, so ipcMain and a window's WebContents
// are stand-ins with Electron's shape and event names; the Lab behind them is real. What is under
// test is the bookkeeping: a reloaded page starts its subscription ids again and must get live
// events, and the old page's subscriptions must not linger.

class FakeIpcMain implements IpcMainLike {
  readonly listeners = new Map<string, (e: { sender: IpcSender }, m: unknown) => void>();
  handle(): void {}
  on(channel: string, fn: (e: { sender: IpcSender }, m: unknown) => void): void {
    this.listeners.set(channel, fn);
  }
  /** What ipcRenderer.send does: the main side's listener runs with the sender. */
  send(sender: FakeWebContents, channel: string, m: unknown): void {
    this.listeners.get(channel)!({ sender }, m);
  }
}

class FakeWebContents extends EventEmitter implements IpcSender {
  readonly sent: StreamServerMessage[] = [];
  constructor(readonly id: number) {
    super();
  }
  send(_channel: string, m: StreamServerMessage): void {
    this.sent.push(m);
  }
  reload(): void {
    this.emit('did-start-navigation', { isSameDocument: false, isMainFrame: true, url: 'app://rightsize/index.html' });
  }
}

let lab: Lab;
const bus = (): EventEmitter => (lab as unknown as { bus: EventEmitter }).bus;
const status = () => lab.handlers['engine.status']({});

beforeAll(async () => {
  lab = await Lab.open({ dbPath: path.join(tempDir(), 'ipc.db') });
});
afterAll(async () => lab.close());

function setup(id: number) {
  const ipc = new FakeIpcMain();
  const reg = registerIpc(ipc, lab);
  const wc = new FakeWebContents(id);
  const subscribe = (subId: number, stream = 'engine.status', input: unknown = {}): void => ipc.send(wc, STREAM_CHANNELS.subscribe, { op: 'subscribe', id: subId, stream, input });
  return { ipc, reg, wc, subscribe };
}

describe('IPC subscriptions across page loads', () => {
  it('a reload drops the old page’s subscriptions; the new page’s id 1 is accepted and gets live events', () => {
    const { reg, wc, subscribe } = setup(1);
    const before = bus().listenerCount('status');
    subscribe(1);
    subscribe(2, 'run.progress');
    expect(reg.live(1)).toBe(2);
    expect(bus().listenerCount('status')).toBe(before + 1);
    expect(wc.sent).toEqual([{ op: 'event', id: 1, event: status() }]); // the current state at once

    wc.reload(); // Ctrl+R: the preload starts over
    expect(reg.live(1)).toBe(0);
    expect(bus().listenerCount('status')).toBe(before);
    subscribe(1);
    expect(wc.sent.at(-1)).toEqual({ op: 'event', id: 1, event: status() }); // not "is not a new whole number"
    expect(wc.sent.filter((m) => m.op === 'error')).toEqual([]);

    // A change reaches the new page once, and nothing reaches the old page's ids.
    wc.sent.length = 0;
    bus().emit('status', { ...status(), activeRunId: 99 });
    expect(wc.sent).toEqual([{ op: 'event', id: 1, event: expect.objectContaining({ activeRunId: 99 }) }]);
  });

  it('a hash route change or a subframe navigation keeps them', () => {
    const { reg, wc, subscribe } = setup(2);
    subscribe(1);
    wc.emit('did-start-navigation', { isSameDocument: true, isMainFrame: true, url: 'app://rightsize/index.html#/runs' });
    wc.emit('did-start-navigation', { isSameDocument: false, isMainFrame: false, url: 'about:blank' });
    expect(reg.live(2)).toBe(1);
  });

  it('reads the older positional form of did-start-navigation too', () => {
    const nav = (...a: NavigationStart): boolean => replacesPage(...a);
    expect(nav({}, 'app://rightsize/index.html', false, true)).toBe(true);
    expect(nav({}, 'app://rightsize/index.html#/x', true, true)).toBe(false);
    expect(nav({}, 'about:blank', false, false)).toBe(false);
    const { reg, wc, subscribe } = setup(3);
    subscribe(1);
    wc.emit('did-start-navigation', {}, 'app://rightsize/index.html', false, true);
    expect(reg.live(3)).toBe(0);
  });

  it('a crashed renderer and a closed window drop theirs', () => {
    const before = bus().listenerCount('status');
    const { reg, wc, subscribe } = setup(4);
    subscribe(1);
    wc.emit('render-process-gone', {}, { reason: 'crashed' });
    expect(reg.live(4)).toBe(0);
    subscribe(1);
    wc.emit('destroyed');
    expect(reg.live(4)).toBe(0);
    expect(bus().listenerCount('status')).toBe(before);
  });

  it('two windows keep separate ids', () => {
    const { ipc, reg, wc, subscribe } = setup(5);
    const other = new FakeWebContents(6);
    subscribe(1);
    ipc.send(other, STREAM_CHANNELS.subscribe, { op: 'subscribe', id: 1, stream: 'engine.status', input: {} });
    other.reload();
    expect(reg.live(5)).toBe(1);
    expect(reg.live(6)).toBe(0);
    expect(wc.sent.every((m) => m.op === 'event')).toBe(true);
  });

  it('a malformed message gets an error back, never a throw in the main process', () => {
    const { ipc, reg, wc } = setup(7);
    const weird = { op: 'subscribe', id: 3, stream: { toString: 1, valueOf: 1 }, input: {} };
    for (const m of [null, undefined, 'x', 42, [], {}, { op: 'subscribe' }, { op: 'subscribe', id: 'a', stream: 'engine.status' }, { op: 'subscribe', id: 1.5, stream: 'engine.status' }, weird, { op: 'nope', id: 1 }]) {
      expect(() => ipc.send(wc, STREAM_CHANNELS.subscribe, m)).not.toThrow();
      expect(() => ipc.send(wc, STREAM_CHANNELS.unsubscribe, m)).not.toThrow();
    }
    expect(reg.live(7)).toBe(0);
    expect(wc.sent.length).toBeGreaterThanOrEqual(11);
    expect(wc.sent.every((m) => m.op === 'error' && m.error.code === 'INVALID_INPUT')).toBe(true);
    expect(wc.sent.find((m) => m.op === 'error' && m.id === 3)).toBeDefined(); // the id it could read is echoed
  });

  it(`caps one page at ${MAX_SUBSCRIPTIONS} subscriptions`, () => {
    const { reg, wc, subscribe } = setup(8);
    for (let i = 1; i <= MAX_SUBSCRIPTIONS + 5; i++) subscribe(i, 'run.progress');
    expect(reg.live(8)).toBe(MAX_SUBSCRIPTIONS);
    expect(wc.sent.filter((m) => m.op === 'error' && m.error.code === 'CONFLICT')).toHaveLength(5);
    wc.reload();
    expect(reg.live(8)).toBe(0);
  });
});
