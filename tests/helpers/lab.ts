import path from 'node:path';
import { Lab } from '../../src-main/service/lab.ts';
import { startServer, type RunningServer } from '../../src-main/transports/http-server.ts';
import type { Envelope, StreamServerMessage } from '../../src-main/contract/api.ts';
import WebSocket from 'ws';
import { tempDir } from './cli.ts';
import { until as waitUntil } from './wait.ts';

/** A Lab on a fresh SQLite file and an HTTP server in front of it, as `rightsize serve` makes them. */
export async function serveLab(staticDir?: string): Promise<{ lab: Lab; server: RunningServer; close: () => Promise<void> }> {
  const lab = await Lab.open({ dbPath: path.join(tempDir(), 'h.db') });
  const server = await startServer({ lab, port: 0, ...(staticDir ? { staticDir } : {}) });
  return { lab, server, close: async () => (await server.close(), await lab.close()) };
}

export async function httpCall(server: RunningServer, name: string, input: unknown, headers: Record<string, string> = {}): Promise<Envelope<unknown>> {
  const res = await fetch(`${server.url}/api/call/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}`, ...headers },
    body: JSON.stringify(input),
  });
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  return (await res.json()) as Envelope<unknown>;
}

/** A stream socket with a queue of received messages and a way to wait for one. */
export async function openSocket(server: RunningServer, headers: Record<string, string> = { cookie: `rightsize_token=${server.token}` }) {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/api/stream`, { headers });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`refused: ${res.statusCode}`)));
    ws.once('error', reject);
  });
  const got: StreamServerMessage[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (d) => {
    got.push(JSON.parse(String(d)) as StreamServerMessage);
    for (const w of waiters.splice(0)) w();
  });
  // Probes again on the next message, or after 200 ms, whichever comes first.
  const nextMessage = () =>
    new Promise<void>((r) => {
      waiters.push(r);
      setTimeout(r, 200);
    });
  const until = (pred: (m: StreamServerMessage[]) => boolean, ms = 30_000): Promise<StreamServerMessage[]> =>
    waitUntil(() => pred(got) && got, () => `the awaited messages; got ${JSON.stringify(got.slice(-3))}`, ms, nextMessage);
  return { ws, got, until, send: (m: unknown) => ws.send(JSON.stringify(m)) };
}
