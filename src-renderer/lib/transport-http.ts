import type { CallName, Envelope, StreamClientMessage, StreamName, StreamServerMessage } from '../../src-main/contract/api.ts';
import type { Transport } from './api.ts';

/**
 * Calls are POSTs; streams share one WebSocket, re-opened (with every live subscription) if it
 * drops. The token travels as an HttpOnly cookie set when the printed URL was opened.
 */
export function httpTransport(loc: Pick<Location, 'origin' | 'host' | 'protocol'>): Transport {
  const subs = new Map<number, { stream: StreamName; input: unknown; onMessage: (m: StreamServerMessage) => void }>();
  let socket: WebSocket | undefined;
  let next = 1;
  let retry = 500;
  /** The pending reconnect after a drop: while it waits, a new subscription must not open a second socket. */
  let reconnect: ReturnType<typeof setTimeout> | undefined;

  const send = (m: StreamClientMessage): void => {
    if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(m));
  };
  const connect = (): void => {
    clearTimeout(reconnect);
    reconnect = undefined;
    const ws = new WebSocket(`${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}/api/stream`);
    socket = ws;
    ws.onopen = () => {
      retry = 500;
      for (const [id, s] of subs) send({ op: 'subscribe', id, stream: s.stream, input: s.input });
    };
    ws.onmessage = (ev) => {
      const m = JSON.parse(String(ev.data)) as StreamServerMessage;
      subs.get(m.id)?.onMessage(m);
    };
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = undefined;
      if (subs.size) reconnect = setTimeout(connect, (retry = Math.min(retry * 2, 10_000)));
    };
  };

  return {
    async call(name: CallName, input: unknown): Promise<Envelope<unknown>> {
      try {
        const res = await fetch(`${loc.origin}/api/call/${name}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(input ?? {}),
          credentials: 'same-origin',
        });
        if (!res.ok) return { ok: false, error: { code: 'INTERNAL', message: `${res.status}: ${(await res.text()).trim()}` } };
        return (await res.json()) as Envelope<unknown>;
      } catch (e) {
        return { ok: false, error: { code: 'INTERNAL', message: `The Rightsize server did not answer (${(e as Error).message}). Is \`rightsize serve\` still running?` } };
      }
    },
    subscribe(stream, input, onMessage) {
      const id = next++;
      subs.set(id, { stream, input, onMessage });
      if (!socket && reconnect === undefined) connect();
      else send({ op: 'subscribe', id, stream, input });
      return () => {
        subs.delete(id);
        send({ op: 'unsubscribe', id });
      };
    },
  };
}
