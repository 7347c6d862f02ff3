import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { pipeline } from 'node:stream';
import type { WebSocket } from 'ws';
import type { StreamServerMessage } from '../contract/api.ts';
import type { Lab } from '../service/lab.ts';
import { dispatch, Subscriptions } from './dispatch.ts';
import { RENDERER_CSP, resolveAsset } from './static-files.ts';
import { loadOnUse } from '../common/load-on-use.ts';

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
/**
 * The largest call body: a matrix or an app definition is a few KB; the largest is a HAR file or access log to
 * import (apps.importRequests: up to 20 MB of text, longer once JSON-escaped). Saving a file is the browser's job.
 */
export const MAX_BODY = 32 * 1024 * 1024;
/** The largest stream message: a subscribe is under 1 KB. */
export const MAX_WS_MESSAGE = 64 * 1024;
/** How often the host's own names and addresses may be re-read when a request names one we do not know. */
const HOST_REFRESH_MS = 5000;

/**
 * The contract over HTTP (POST /api/call/<name>) and a WebSocket (/api/stream), plus the built
 * renderer. Every request needs the token (cookie, bearer header, or ?token= once), a Host this
 * server answers to, and no foreign Origin: a web page the user visits must not start containers.
 * Every path is total: whatever a client sends gets an answer (4xx) or a closed socket, never a
 * throw, so a bad request cannot stop a run in progress.
 */
export async function startServer(o: ServeOptions): Promise<RunningServer> {
  const token = o.token ?? randomBytes(24).toString('base64url');
  const host = o.host ?? '127.0.0.1';
  let port = 0;
  let names = new Set<string>();
  let namesAt = 0;

  /** The names this server answers to, lower case without port: see {@link hostNames}. */
  const knows = (name: string): boolean => {
    if (names.has(name)) return true;
    if (Date.now() - namesAt < HOST_REFRESH_MS) return false;
    names = hostNames(host); // an address from DHCP or a renamed laptop, since we started
    namesAt = Date.now();
    return names.has(name);
  };
  const hostOk = (value: string | undefined): boolean => {
    const h = splitHost(value ?? '');
    return h !== null && (h.port === port || (h.port === null && port === 80)) && knows(h.name);
  };
  const originOk = (origin: string): boolean => origin.startsWith('http://') && hostOk(origin.slice('http://'.length));

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
    if (!hostOk(req.headers.host)) return [421, 'This server does not answer to that host name.'];
    const origin = req.headers.origin;
    if (origin !== undefined && !originOk(origin)) return [403, 'Requests from that origin are refused.'];
    if (!tokenOk(req, url))
      return [401, 'Missing or wrong token: open the URL that `rightsize serve` printed (it carries the token).'];
    return null;
  };

  const route = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const url = parseUrl(req.url);
    if (!url) return text(res, 400, 'Malformed request target.');
    const no = refuse(req, url);
    if (no) return text(res, no[0], no[1]);
    if (url.searchParams.has('token') && req.method === 'GET') {
      // Trade the token in the URL for a cookie, so it leaves the address bar and history.
      url.searchParams.delete('token');
      // One leading slash: `//elsewhere` would be another site's address.
      res.writeHead(302, {
        'set-cookie': `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`,
        location: `/${url.pathname.replace(/^\/+/, '')}${url.search}`,
      });
      return void res.end();
    }
    const call = /^\/api\/call\/([\w.]{1,100})$/.exec(url.pathname);
    if (call && req.method === 'POST')
      return void handleCall(o.lab, call[1]!, req, res).catch((e: unknown) => fail(res, e));
    if (url.pathname.startsWith('/api/')) return text(res, 404, 'No such API route.');
    if (req.method !== 'GET' && req.method !== 'HEAD') return text(res, 405, 'Method not allowed.');
    serveStatic(o.staticDir, url.pathname, req, res);
  };

  const server = http.createServer((req, res) => {
    req.on('error', () => {}); // an aborted upload: the handler reading it sees the end, nothing else to do
    res.on('error', () => {});
    try {
      route(req, res);
    } catch (e) {
      fail(res, e);
    }
  });
  server.requestTimeout = 60_000; // a client trickling a body holds a socket, not the server
  server.headersTimeout = 20_000;
  server.on('clientError', (e: NodeJS.ErrnoException, socket) => {
    // Unparseable HTTP: answer if the socket can still take it (as Node's default would), then drop it.
    const status = e.code === 'HPE_HEADER_OVERFLOW' ? 431 : e.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    if (socket.writable && e.code !== 'ECONNRESET')
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    else socket.destroy();
  });

  const { WebSocketServer } = loadOnUse('ws') as typeof import('ws');
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_WS_MESSAGE });
  wss.on('error', () => {});
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy()); // a reset mid-handshake must not become an uncaught error
    try {
      const url = parseUrl(req.url);
      const no: [number, string] | null = !url
        ? [400, 'Malformed request target.']
        : url.pathname === '/api/stream'
          ? refuse(req, url)
          : [404, 'Not found'];
      if (no) {
        const statusLine = `HTTP/1.1 ${no[0]} ${http.STATUS_CODES[no[0]]}\r\n`;
        socket.end(`${statusLine}Content-Type: text/plain\r\nConnection: close\r\n\r\n${no[1]}`);
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => attachStream(o.lab, ws));
    } catch {
      socket.destroy();
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host, resolve);
  });
  server.on('error', () => {}); // after listening, a server error (EMFILE on accept) must not end the process
  port = (server.address() as AddressInfo).port;
  names = hostNames(host);
  namesAt = Date.now();
  const shown = host.includes(':') ? `[${host}]` : host;
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

const isUnspecified = (host: string): boolean => host === '0.0.0.0' || host === '::' || host === '';

/**
 * The host names (lower case, IPv6 bracketed, no port) a server listening on `bound` answers to.
 * Loopback: localhost and the loopback addresses. A specific address: it, plus this machine's
 * name. All addresses (0.0.0.0, ::): also every address of every interface. A name anyone else
 * controls (DNS rebinding) is never among them.
 */
export function hostNames(
  bound: string,
  facts: { hostname: string; interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> } = {
    hostname: os.hostname(),
    interfaces: os.networkInterfaces(),
  },
): Set<string> {
  const out = new Set<string>();
  const add = (h: string): void => {
    const x = h.toLowerCase().replace(/%.*$/, ''); // an IPv6 zone (fe80::1%eth0) is not part of a Host header
    if (x) out.add(x.includes(':') ? `[${x}]` : x);
  };
  add(bound);
  for (const h of ['localhost', '127.0.0.1', '::1']) add(h);
  if (isLoopback(bound)) return out;
  const name = facts.hostname.toLowerCase();
  if (name) {
    add(name);
    add(`${name.split('.')[0]}.local`); // mDNS, as laptops are reached on a LAN
    add(name.split('.')[0]!);
  }
  if (isUnspecified(bound))
    for (const list of Object.values(facts.interfaces)) for (const a of list ?? []) add(a.address);
  return out;
}

/** `name:port` of a Host header (or an Origin without its scheme), or null when malformed. */
export function splitHost(value: string): { name: string; port: number | null } | null {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/\s@]+)(?::(\d{1,5}))?$/.exec(value);
  if (!m) return null;
  return { name: m[1]!.toLowerCase(), port: m[2] === undefined ? null : Number(m[2]) };
}

function parseUrl(target: string | undefined): URL | null {
  try {
    return new URL(target ?? '/', 'http://x');
  } catch {
    return null;
  }
}

/** The last resort of a request whose handler threw: 500 if nothing was sent yet, else drop the socket. */
function fail(res: http.ServerResponse, e: unknown): void {
  if (res.headersSent) return void res.destroy();
  text(res, 500, `Internal error: ${e instanceof Error ? e.message : String(e)}`);
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

function text(res: http.ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
  res.end(`${message}\n`);
}

function json(res: http.ServerResponse, body: unknown): void {
  res.writeHead(200, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(JSON.stringify(body));
}

async function handleCall(lab: Lab, name: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const declared = Number(req.headers['content-length']);
  if (declared > MAX_BODY) return tooLarge(req, res);
  const body = await readBody(req);
  if (body === 'too-large') return tooLarge(req, res);
  if (body === null) return void res.destroy(); // the client went away mid-body: nobody to answer
  let input: unknown;
  try {
    input = body.trim() ? JSON.parse(body) : undefined;
  } catch (e) {
    return json(res, {
      ok: false,
      error: { code: 'INVALID_INPUT', message: `The body is not JSON: ${(e as Error).message}` },
    });
  }
  json(res, await dispatch(lab, name, input));
}

/** The whole body as text; null when the client aborted; 'too-large' past MAX_BODY. Never throws. */
function readBody(req: http.IncomingMessage): Promise<string | null | 'too-large'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        req.removeAllListeners('data');
        req.pause();
        return resolve('too-large');
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('aborted', () => resolve(null));
    req.on('close', () => resolve(req.complete ? Buffer.concat(chunks).toString('utf8') : null));
    req.on('error', () => resolve(null));
  });
}

function tooLarge(req: http.IncomingMessage, res: http.ServerResponse): void {
  // Answer, then close: reading the rest of a body we will not use would only cost time.
  res.setHeader('connection', 'close');
  text(res, 413, `Request body too large (at most ${MAX_BODY} bytes).`);
  res.on('finish', () => req.destroy());
}

function attachStream(lab: Lab, ws: WebSocket): void {
  const send = (m: StreamServerMessage): void => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
  };
  const subs = new Subscriptions(
    lab,
    (id, event) => send({ op: 'event', id, event }),
    (id, error) => send({ op: 'error', id, error }),
  );
  ws.on('error', () => ws.terminate()); // a bad frame (ws has already closed with the reason): drop the socket
  ws.on('message', (data, isBinary) => {
    if (isBinary)
      return send({ op: 'error', id: -1, error: { code: 'INVALID_INPUT', message: 'Messages are JSON text.' } });
    let m: unknown;
    try {
      m = JSON.parse(String(data));
    } catch {
      return send({ op: 'error', id: -1, error: { code: 'INVALID_INPUT', message: 'Messages are JSON.' } });
    }
    subs.handle(m);
  });
  ws.on('close', () => subs.closeAll()); // a closed tab stops its streams
}

function serveStatic(
  dir: string | undefined,
  pathname: string,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): void {
  if (!dir || !existsSync(path.join(dir, 'index.html')))
    return text(
      res,
      503,
      'The UI is not built: stop this server and run `npm run serve` in the Rightsize folder (it builds first).',
    );
  let asset = resolveAsset(dir, pathname);
  // A path without an extension is a client-side route: the page handles it.
  if (!asset.ok && asset.status === 404 && path.extname(pathname) === '') asset = resolveAsset(dir, '/index.html');
  if (!asset.ok) return text(res, asset.status, asset.status === 404 ? 'Not found.' : `Refused: ${asset.reason}.`);
  res.writeHead(200, {
    'content-type': asset.type,
    'content-security-policy': RENDERER_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': asset.file.endsWith('index.html') ? 'no-store' : 'max-age=3600',
  });
  if (req.method === 'HEAD') return void res.end();
  // a file gone mid-read or a client gone: the socket closes, nothing else
  pipeline(createReadStream(asset.file), res, () => {});
}
