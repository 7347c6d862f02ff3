// nginx/Apache access logs, combined or common format:
// 1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a.gif HTTP/1.0" 200 2326 "referer" "user agent"
import type { SeenRequest } from './types.ts';

/**
 * Address, identity and user (a vhost may come first), the time, the quoted request line (Apache escapes a
 * quote inside as \"), status and size; the referer, user agent and any custom fields after are not needed.
 */
const LINE = /^(?:\S+ ){3,4}\[[^\]]+\] "((?:[^"\\]|\\.)*)" (\d{3}|-) (?:\d+|-)(?:\s|$)/;

/** "GET /x?y=1 HTTP/1.1" (HTTP/0.9 lines have no protocol; a path may hold raw spaces, so it is what is between). */
const REQUEST_LINE = /^([A-Za-z]+) +(\S(?:.*?\S)?)(?: +HTTP\/\d(?:\.\d)?)?$/;

/** A request line's method and target, or why it names no request (a TLS handshake sent to the HTTP port, "-"). */
export function parseRequestLine(line: string): Pick<SeenRequest, 'method' | 'target' | 'notServed'> {
  const m = REQUEST_LINE.exec(line.trim());
  if (!m) return { method: '', target: '', notServed: 'no HTTP request line' };
  return { method: m[1]!.toUpperCase(), ...targetOf(m[2]!) };
}

/** The path and query of a request target: absolute URLs (sent to proxies) lose their scheme and host. */
export function targetOf(raw: string): { target: string; host?: string; notServed?: string } {
  if (/^https?:\/\//i.test(raw)) {
    try {
      const url = new URL(raw);
      return { target: `${url.pathname}${url.search}`, host: url.host.toLowerCase() };
    } catch {
      return { target: raw, notServed: 'not a URL' };
    }
  }
  // "*" (OPTIONS *) and "host:443" (CONNECT) name no path.
  return raw.startsWith('/') ? { target: raw.replace(/#.*$/, '') } : { target: raw, notServed: 'no path' };
}

/** The request of a combined/common log line, or undefined when the line is not one. */
export function parseAccessLine(line: string): SeenRequest | undefined {
  const m = LINE.exec(line);
  if (!m) return undefined;
  const request = parseRequestLine(m[1]!.replace(/\\(.)/g, '$1'));
  const status = m[2] === '-' ? undefined : Number(m[2]);
  // Access logs name no host: the server they come from is the one to size.
  return { method: request.method, target: request.target, status, notServed: request.notServed };
}
