import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { StreamClientMessage, StreamServerMessage } from '../contract/api.ts';
import type { Lab } from '../service/lab.ts';
import { dispatch, Subscriptions } from './dispatch.ts';

export interface ServeOptions {
  lab: Lab;
  host?: string;
  port?: number;
  /** Defaults to a fresh random token. */
  token?: string;
  /** The built renderer (dist/renderer). */
  staticDir?: string;
}

export interface RunningServer {
  url: string;
  /** The URL to open: it carries the token once, then a cookie does. */
  loginUrl: string;
  token: string;
  close(): Promise<void>;
}

const COOKIE = 'rightsize_token';
const MAX_BODY = 5 * 1024 * 1024;
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.json': 'application/json', '.woff2': 'font/woff2', '.map': 'application/json',
};

/**
 * The contract over HTTP (POST /api/call/<name>) and a WebSocket (/api/stream), plus the built
 * renderer. Every request needs the token (cookie, bearer header, or ?token= once), a Host this
 * server answers to, and no foreign Origin: a web page the user visits must not start containers.
 */
export async function startServer(o: ServeOptions): Promise<RunningServer> {
  const token = o.token ?? randomBytes(24).toString('base64url');
  const host = o.host ?? '127.0.0.1';
  let origins = new Set<string>();
  let hosts = new Set<string>();

  const tokenOk = (req: http.IncomingMessage, url: URL): boolean => {
    const given =
      url.searchParams.get('token') ??
      /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ??
      new RegExp(`(?:^|;\\s*)${COOKIE}=([^;]+)`).exec(req.headers.cookie ?? '')?.[1];
    if (!given) return false;
    const a = Buffer.from(given);
    const b = Buffer.from(token);
    return a.length === b.length && timingSafeEqual(a, b);
  };

  /** null when allowed, else [status, message]. */
  const refuse = (req: http.IncomingMessage, url: URL): [number, string] | null => {
    if (!hosts.has(req.headers.host ?? '')) return [421, 'This server does not answer to that host name.'];
    const origin = req.headers.origin;
    if (origin !== undefined && !origins.has(origin)) return [403, `Requests from ${origin} are refused.`];
    if (!tokenOk(req, url)) return [401, 'Missing or wrong token: open the URL that `rightsize serve` printed (it carries the token).'];
    return null;
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const no = refuse(req, url);
    if (no) return text(res, no[0], no[1]);
    if (url.searchParams.has('token') && req.method === 'GET') {
      // Trade the token in the URL for a cookie, so it leaves the address bar and history.
      url.searchParams.delete('token');
      res.writeHead(302, { 'set-cookie': `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`, location: url.pathname + url.search });
      return res.end();
    }
    const call = /^\/api\/call\/([\w.]+)$/.exec(url.pathname);
    if (call && req.method === 'POST') return void handleCall(o.lab, call[1]!, req, res);
    if (url.pathname.startsWith('/api/')) return text(res, 404, 'No such API route.');
    if (req.method !== 'GET' && req.method !== 'HEAD') return text(res, 405, 'Method not allowed.');
    serveStatic(o.staticDir, url.pathname, req, res);
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const no = url.pathname === '/api/stream' ? refuse(req, url) : ([404, 'Not found'] as [number, string]);
    if (no) {
      socket.end(`HTTP/1.1 ${no[0]} ${http.STATUS_CODES[no[0]]}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${no[1]}`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => attachStream(o.lab, ws));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  hosts = new Set([`${shown}:${port}`, ...(isLoopback(host) ? [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`] : [])]);
  origins = new Set([...hosts].map((h) => `http://${h}`));
  const url = `http://${shown}:${port}`;
  return {
    url,
    loginUrl: `${url}/?token=${token}`,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

function text(res: http.ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
  res.end(`${message}\n`);
}

function json(res: http.ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(JSON.stringify(body));
}

async function handleCall(lab: Lab, name: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_BODY) return text(res, 413, 'Request body too large.');
    chunks.push(c);
  }
  const body = Buffer.concat(chunks).toString('utf8');
  let input: unknown;
  try {
    input = body.trim() ? JSON.parse(body) : undefined;
  } catch (e) {
    return json(res, { ok: false, error: { code: 'INVALID_INPUT', message: `The body is not JSON: ${(e as Error).message}` } });
  }
  json(res, await dispatch(lab, name, input));
}

function attachStream(lab: Lab, ws: WebSocket): void {
  const send = (m: StreamServerMessage): void => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
  };
  const subs = new Subscriptions(lab, (id, event) => send({ op: 'event', id, event }), (id, error) => send({ op: 'error', id, error }));
  ws.on('message', (data) => {
    let m: StreamClientMessage;
    try {
      m = JSON.parse(String(data)) as StreamClientMessage;
    } catch {
      return send({ op: 'error', id: -1, error: { code: 'INVALID_INPUT', message: 'Messages are JSON.' } });
    }
    if (m.op === 'subscribe') subs.open(m.id, m.stream, m.input);
    else if (m.op === 'unsubscribe') subs.close(m.id);
  });
  ws.on('close', () => subs.closeAll()); // a closed tab stops its streams
}

function serveStatic(dir: string | undefined, pathname: string, req: http.IncomingMessage, res: http.ServerResponse): void {
  if (!dir || !existsSync(path.join(dir, 'index.html'))) return text(res, 503, 'The UI is not built: run `npm run build`, then start `rightsize serve` again.');
  const rel = decodeURIComponent(pathname).replace(/^\/+/, '');
  let file = path.resolve(dir, rel || 'index.html');
  if (!file.startsWith(path.resolve(dir) + path.sep) && file !== path.resolve(dir)) return text(res, 403, 'Forbidden.');
  if (!existsSync(file) || statSync(file).isDirectory()) file = path.join(dir, 'index.html'); // client-side routes
  res.writeHead(200, {
    'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
    'content-security-policy': "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': file.endsWith('index.html') ? 'no-store' : 'max-age=3600',
  });
  if (req.method === 'HEAD') return void res.end();
  createReadStream(file).pipe(res);
}
