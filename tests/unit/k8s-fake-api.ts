// A fake Kubernetes API server for the provider's tests: a real local HTTP server that records every
// request (method, path with query, JSON body, headers) and replays recorded response bodies from
// tests/fixtures/k8s/. No API server can run on this machine, so the Kubernetes provider is
// verified against recorded API responses here, not against a live cluster.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/k8s');
export const fixture = <T = Record<string, unknown>>(name: string): T => JSON.parse(readFileSync(path.join(FIXTURES, name), 'utf8')) as T;
export const fixtureText = (name: string): string => readFileSync(path.join(FIXTURES, name), 'utf8');

export interface Recorded {
  method: string;
  /** Path and query as sent. */
  url: string;
  pathname: string;
  query: URLSearchParams;
  body: unknown;
  headers: http.IncomingHttpHeaders;
}

export interface Reply {
  status?: number;
  json?: unknown;
  text?: string;
  contentType?: string;
  /**
   * A body written over time, as a followed pod log is (chunked, no length): the function gets the
   * open response and writes and ends it when it likes (test code drives it, e.g. on a DELETE).
   */
  stream?: (res: http.ServerResponse) => void;
}
type Replier = Reply | ((r: Recorded) => Reply);

/** A list response as the API server sends it (kind, apiVersion, metadata.resourceVersion, items). */
export const listOf = (kind: string, items: unknown[], apiVersion = 'v1'): Reply => ({ json: { kind, apiVersion, metadata: { resourceVersion: '49000' }, items } });
export const status = (code: number, file: string): Reply => ({ status: code, json: fixture(file) });

export class FakeApi {
  readonly requests: Recorded[] = [];
  private readonly routes: { method: string; path: RegExp; replies: Replier[]; served: number }[] = [];
  private server?: http.Server;
  url = '';

  /** Answers `method path` with the replies in turn; the last one repeats. Later routes win over earlier ones. */
  on(method: string, pathname: string | RegExp, ...replies: Replier[]): this {
    const re = typeof pathname === 'string' ? new RegExp(`^${pathname.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : pathname;
    this.routes.unshift({ method, path: re, replies, served: 0 });
    return this;
  }

  /** Requests matching a method and a path (string: exact pathname; RegExp: tested on the pathname). */
  calls(method: string, pathname: string | RegExp): Recorded[] {
    return this.requests.filter((r) => r.method === method && (typeof pathname === 'string' ? r.pathname === pathname : pathname.test(r.pathname)));
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (d: Buffer) => chunks.push(d));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const u = new URL(req.url ?? '/', 'http://fake');
        const rec: Recorded = {
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          pathname: u.pathname,
          query: u.searchParams,
          body: raw ? (JSON.parse(raw) as unknown) : undefined,
          headers: req.headers,
        };
        this.requests.push(rec);
        const route = this.routes.find((r) => r.method === rec.method && r.path.test(rec.pathname));
        let reply: Reply;
        if (!route) {
          reply = { status: 404, json: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `the server could not find the requested resource (${rec.method} ${rec.pathname})`, reason: 'NotFound', details: {}, code: 404 } };
        } else {
          const r = route.replies[Math.min(route.served, route.replies.length - 1)]!;
          route.served++;
          reply = typeof r === 'function' ? r(rec) : r;
        }
        if (reply.stream) {
          res.writeHead(reply.status ?? 200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
          res.flushHeaders();
          reply.stream(res);
          return;
        }
        const body = reply.text ?? JSON.stringify(reply.json ?? {});
        res.writeHead(reply.status ?? 200, { 'Content-Type': reply.contentType ?? (reply.text !== undefined ? 'text/plain; version=0.0.4; charset=utf-8' : 'application/json'), 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** A kubeconfig pointing at this server, with a bearer token (plain HTTP needs skipTLSVerify in client-node). */
  kubeConfig(token = 'fake-token-123'): KubeConfig {
    return kubeConfigFor(this.url, token);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

export function kubeConfigFor(server: string, token = 'fake-token-123', extra: Record<string, unknown> = {}): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'fake', server, skipTLSVerify: server.startsWith('http:'), ...extra }],
    users: [{ name: 'tester', token }],
    contexts: [{ name: 'fake-ctx', cluster: 'fake', user: 'tester' }],
    currentContext: 'fake-ctx',
  });
  return kc;
}
