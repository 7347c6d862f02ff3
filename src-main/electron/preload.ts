// Exposes exactly the contract to the renderer: a typed call and typed subscriptions, nothing else
// (no raw ipcRenderer). Bundled as CommonJS, as sandboxed preloads must be.
import { contextBridge, ipcRenderer } from 'electron';
import {
  CALL_NAMES,
  STREAM_NAMES,
  callChannel,
  STREAM_CHANNELS,
  type CallName,
  type Envelope,
  type StreamName,
  type StreamServerMessage,
} from '../contract/api.ts';

const listeners = new Map<number, (m: StreamServerMessage) => void>();
// The main process drops a page's subscriptions when it reloads or navigates; starting each page
// load's ids at a random point also keeps a late message of the old page from colliding with the new.
let next = 1 + Math.floor(Math.random() * 2 ** 40);
ipcRenderer.on(STREAM_CHANNELS.event, (_e, m: StreamServerMessage) => listeners.get(m.id)?.(m));

const bridge = {
  call(name: CallName, input: unknown): Promise<Envelope<unknown>> {
    if (!CALL_NAMES.includes(name))
      return Promise.resolve({
        ok: false,
        error: { code: 'UNKNOWN_CALL', message: `There is no call "${String(name)}".` },
      });
    return ipcRenderer.invoke(callChannel(name), input) as Promise<Envelope<unknown>>;
  },
  subscribe(stream: StreamName, input: unknown, onMessage: (m: StreamServerMessage) => void): () => void {
    if (!STREAM_NAMES.includes(stream)) throw new Error(`There is no stream "${String(stream)}".`);
    const id = next++;
    listeners.set(id, onMessage);
    ipcRenderer.send(STREAM_CHANNELS.subscribe, { op: 'subscribe', id, stream, input });
    return () => {
      listeners.delete(id);
      ipcRenderer.send(STREAM_CHANNELS.unsubscribe, { op: 'unsubscribe', id });
    };
  },
};

export type RightsizeBridge = typeof bridge;
contextBridge.exposeInMainWorld('rightsize', bridge);
