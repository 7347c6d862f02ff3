import { CALL_NAMES, callChannel, STREAM_CHANNELS, type StreamClientMessage, type StreamServerMessage } from '../contract/api.ts';
import type { Lab } from '../service/lab.ts';
import { dispatch, Subscriptions } from './dispatch.ts';

/** The slice of Electron's ipcMain and WebContents we use: lets tests drive this without Electron. */
export interface IpcSender {
  id: number;
  send(channel: string, message: StreamServerMessage): void;
  once(event: 'destroyed', fn: () => void): unknown;
}
export interface IpcMainLike {
  handle(channel: string, fn: (event: { sender: IpcSender }, input: unknown) => Promise<unknown>): void;
  on(channel: string, fn: (event: { sender: IpcSender }, message: StreamClientMessage) => void): void;
}

/**
 * Registers one handler per contract call (from the contract's own list, so none can be
 * forgotten) and the stream channels. A window's subscriptions stop when the window goes away.
 */
export function registerIpc(ipc: IpcMainLike, lab: Lab): void {
  for (const name of CALL_NAMES) ipc.handle(callChannel(name), (_event, input) => dispatch(lab, name, input));

  const perSender = new Map<number, Subscriptions>();
  const subsOf = (sender: IpcSender): Subscriptions => {
    let subs = perSender.get(sender.id);
    if (!subs) {
      const s = new Subscriptions(
        lab,
        (id, event) => sender.send(STREAM_CHANNELS.event, { op: 'event', id, event }),
        (id, error) => sender.send(STREAM_CHANNELS.event, { op: 'error', id, error }),
      );
      perSender.set(sender.id, s);
      sender.once('destroyed', () => {
        s.closeAll();
        perSender.delete(sender.id);
      });
      subs = s;
    }
    return subs;
  };
  ipc.on(STREAM_CHANNELS.subscribe, (e, m) => m.op === 'subscribe' && subsOf(e.sender).open(m.id, m.stream, m.input));
  ipc.on(STREAM_CHANNELS.unsubscribe, (e, m) => perSender.get(e.sender.id)?.close(m.id));
}
