// The renderer's one client of the engine contract, whichever transport carries it: Electron IPC
// through the preload bridge, or HTTP + WebSocket from `rightsize serve`.
import {
  unwrap,
  type CallInput,
  type CallName,
  type CallOutput,
  type Envelope,
  type StreamEvent,
  type StreamInput,
  type StreamName,
  type StreamServerMessage,
  ContractError,
} from '../../src-main/contract/api.ts';
import { httpTransport } from './transport-http.ts';

export { ContractError };

export interface Transport {
  call(name: CallName, input: unknown): Promise<Envelope<unknown>>;
  subscribe(stream: StreamName, input: unknown, onMessage: (m: StreamServerMessage) => void): () => void;
}

class Api {
  constructor(private readonly transport: Transport) {}

  async call<K extends CallName>(name: K, input: CallInput<K>): Promise<CallOutput<K>> {
    return unwrap(await this.transport.call(name, input)) as CallOutput<K>;
  }

  /** Returns the stop function; errors of the subscription itself go to onError (or the console). */
  subscribe<K extends StreamName>(stream: K, input: StreamInput<K>, onEvent: (e: StreamEvent<K>) => void, onError?: (e: ContractError) => void): () => void {
    return this.transport.subscribe(stream, input, (m) => {
      if (m.op === 'event') onEvent(m.event as StreamEvent<K>);
      else (onError ?? ((e) => console.error(e)))(new ContractError(m.error));
    });
  }
}

declare global {
  interface Window {
    rightsize?: Transport;
  }
}

/** Electron's preload exposes `window.rightsize`; anywhere else we are served over HTTP. */
export const api = new Api(window.rightsize ?? httpTransport(window.location));
export const transportName = window.rightsize ? 'ipc' : 'http';
