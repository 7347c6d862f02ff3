import { CALL_NAMES, callChannel, STREAM_CHANNELS, type StreamServerMessage } from '../contract/api.ts';
import type { Lab } from '../service/lab.ts';
import { dispatch, Subscriptions } from './dispatch.ts';

/**
 * What Electron says when a page starts to navigate: the details object (Electron ≥ 30) or the old positional
 * arguments.
 */
export type NavigationStart = [
  details: { isSameDocument?: boolean; isMainFrame?: boolean } | undefined,
  url?: string,
  isInPlace?: boolean,
  isMainFrame?: boolean,
];

/** The slice of Electron's ipcMain and WebContents we use: lets tests drive this without Electron. */
export interface IpcSender {
  id: number;
  send(channel: string, message: StreamServerMessage): void;
  once(event: 'destroyed', fn: () => void): unknown;
  /**
   * A page load of this sender (reload, navigation) or a crashed renderer: its old page's
   * subscriptions are gone with it. Optional only so a bare stand-in without pages still fits.
   */
  on?(event: 'did-start-navigation', fn: (...args: NavigationStart) => void): unknown;
  on?(event: 'render-process-gone', fn: () => void): unknown;
}
export interface IpcMainLike {
  handle(channel: string, fn: (event: { sender: IpcSender }, input: unknown) => Promise<unknown>): void;
  on(channel: string, fn: (event: { sender: IpcSender }, message: unknown) => void): void;
}

/**
 * Whether a navigation replaces the main frame's document (a reload or a new page), not a hash change or a subframe.
 */
export function replacesPage(...args: NavigationStart): boolean {
  const [details, , isInPlace, isMainFrame] = args;
  const sameDocument = details?.isSameDocument ?? isInPlace ?? false;
  const mainFrame = details?.isMainFrame ?? isMainFrame ?? true;
  return mainFrame && !sameDocument;
}

/**
 * Registers one handler per contract call (from the contract's own list, so none can be
 * forgotten) and the stream channels. A page's subscriptions stop when the page goes: on a
 * reload or navigation (the new page's preload numbers its subscriptions afresh), a renderer
 * crash, or the window's end. Returns the live subscription count per sender, for tests.
 */
export function registerIpc(ipc: IpcMainLike, lab: Lab): { live: (senderId: number) => number } {
  for (const name of CALL_NAMES) ipc.handle(callChannel(name), (_event, input) => dispatch(lab, name, input));

  const perSender = new Map<number, Subscriptions>();
  const watched = new WeakSet<IpcSender>();
  const drop = (id: number): void => {
    perSender.get(id)?.closeAll();
    perSender.delete(id);
  };
  const watch = (sender: IpcSender): void => {
    if (watched.has(sender)) return;
    watched.add(sender);
    sender.once('destroyed', () => drop(sender.id));
    sender.on?.('did-start-navigation', (...args: NavigationStart) => {
      if (replacesPage(...args)) drop(sender.id);
    });
    sender.on?.('render-process-gone', () => drop(sender.id));
  };
  const subsOf = (sender: IpcSender): Subscriptions => {
    let subs = perSender.get(sender.id);
    if (!subs) {
      subs = new Subscriptions(
        lab,
        (id, event) => sender.send(STREAM_CHANNELS.event, { op: 'event', id, event }),
        (id, error) => sender.send(STREAM_CHANNELS.event, { op: 'error', id, error }),
      );
      perSender.set(sender.id, subs);
      watch(sender);
    }
    return subs;
  };
  // Both channels take any payload: a malformed one gets an error event back, never a throw in the main process.
  ipc.on(STREAM_CHANNELS.subscribe, (e, m) => subsOf(e.sender).handle(m));
  ipc.on(STREAM_CHANNELS.unsubscribe, (e, m) => perSender.get(e.sender.id)?.handle(m));
  return { live: (senderId) => perSender.get(senderId)?.size ?? 0 };
}
