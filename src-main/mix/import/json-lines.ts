// JSON-lines request logs: {"method":"GET","path":"/x","status":200} per line; `url`/`uri` for the path,
// or `request` as "GET /x HTTP/1.1"; pino-http's {"req":{"method","url"},"res":{"statusCode"}} too.
import { parseRequestLine, targetOf } from './access-log.ts';
import { isRecord } from './text.ts';
import type { SeenRequest } from './types.ts';

const str = (...vs: unknown[]): string | undefined => vs.find((v): v is string => typeof v === 'string' && v !== '');

const statusOf = (...vs: unknown[]): number | undefined => {
  const v = vs.find((x) => (typeof x === 'number' || typeof x === 'string') && /^\d{3}$/.test(String(x)));
  return v === undefined ? undefined : Number(v);
};

/**
 * The request a JSON record logs; `notServed` when it has neither a method nor a path (an app's own message in
 * the same stream, "server listening"); undefined when it has only one of them.
 */
export function jsonRequest(rec: Record<string, unknown>): SeenRequest | undefined {
  const req = isRecord(rec.req) ? rec.req : {};
  const res = isRecord(rec.res) ? rec.res : {};
  const fromLine = typeof rec.request === 'string' ? parseRequestLine(rec.request) : undefined;
  const method = str(rec.method, req.method) ?? (fromLine?.notServed ? undefined : fromLine?.method);
  const path = str(rec.path, rec.url, rec.uri, req.url, req.path);
  const target = path !== undefined ? targetOf(path) : fromLine?.notServed ? undefined : fromLine;
  if (method === undefined && target === undefined)
    return { method: '', target: '', notServed: 'a JSON line without method and path' };
  if (method === undefined || target === undefined) return undefined;
  const host = str(rec.host, 'host' in target ? target.host : undefined);
  return {
    method: method.toUpperCase(),
    target: target.target,
    ...(host !== undefined ? { host: host.toLowerCase() } : {}),
    status: statusOf(rec.status, rec.statusCode, res.statusCode, res.status),
    ...(target.notServed !== undefined ? { notServed: target.notServed } : {}),
  };
}
