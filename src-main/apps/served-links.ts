// What a user's app serves (`apps add --tls`, `--http2 h2|h2c`), and so which of a matrix's cells it can be measured
// in. A cell over a link the app does not serve would only measure connection errors: it is refused before anything
// starts (the run and its dry run alike), with what to write. The built-in apps serve every link (RS_PROTOCOL).
import { z } from 'zod';
import type { Problem } from '../common/issues.ts';
import type { CellLoad } from '../model/cell-load.ts';

/** "h2": HTTP/2 over TLS with HTTP/1.1 beside it (ALPN); "h2c": HTTP/2 in clear, HTTP/2 only. */
export const HTTP2_KINDS = ['h2', 'h2c'] as const;
export type Http2Kind = (typeof HTTP2_KINDS)[number];

export const Http2Schema = z.enum(HTTP2_KINDS, {
  error: 'http2 is "h2" (HTTP/2 over TLS, HTTP/1.1 beside it) or "h2c" (HTTP/2 in clear)',
});

/** What the check needs of an app: a resolved definition or a stored user app. */
export interface Serving {
  name: string;
  builtIn?: boolean;
  tls?: boolean;
  http2?: Http2Kind | undefined;
}

/** The declaration's own rule: h2 is HTTP/2 over TLS, h2c in clear; undefined when they agree. */
export function http2Problem(a: Omit<Serving, 'name'>): string | undefined {
  if (a.http2 === 'h2' && !a.tls) return '"h2" is HTTP/2 over TLS: the app serves HTTPS itself too (--tls)';
  if (a.http2 === 'h2c' && a.tls)
    return '"h2c" is HTTP/2 in clear: an app that serves HTTPS itself (--tls) serves "h2" instead';
  return undefined;
}

type Link = Pick<CellLoad, 'tls' | 'protocol'>;

/** Why the app does not serve the link (a key of {@link WORDS}), or undefined when it does. */
function refusal(a: Serving, link: Link): keyof typeof WORDS | undefined {
  if (a.builtIn) return undefined;
  if (a.http2 === 'h2c') return link.protocol === 'h2c' ? undefined : 'h2cOnly';
  if (link.protocol === 'h2c') return 'noH2c';
  if (link.protocol === 'h2') return a.http2 === 'h2' ? undefined : 'noH2';
  if (link.tls && !a.tls) return 'plain';
  if (!link.tls && a.tls) return a.http2 === 'h2' ? 'tlsH2' : 'tls';
  return undefined;
}

const serve = (n: string[]): string => `${n.join(', ')} ${n.length === 1 ? 'serves' : 'serve'}`;
const doNot = (n: string[]): string => `${n.join(', ')} ${n.length === 1 ? 'does' : 'do'} not serve`;

const WORDS = {
  plain: (n: string[]): Problem => ({
    path: 'tls',
    message:
      `${serve(n)} plain HTTP: HTTPS cells need the built-in apps or an app added with --tls ` +
      '(it serves HTTPS itself)',
  }),
  tls: (n: string[]): Problem => ({
    path: 'tls',
    message: `${serve(n)} HTTPS itself (--tls): give "tls": [true] so every cell of it is measured over TLS`,
  }),
  tlsH2: (n: string[]): Problem => ({
    path: 'tls',
    message:
      `${serve(n)} HTTPS itself (--tls --http2 h2): give "tls": [true] with "protocol": ["http1", "h2"], or ` +
      '"protocol": ["h2"], so every cell of it is measured over TLS',
  }),
  noH2: (n: string[]): Problem => ({
    path: 'protocol',
    message:
      `${doNot(n)} HTTP/2 over TLS: "h2" cells need an app added with --tls --http2 h2 (it serves h2 itself); ` +
      'leave "h2" out of "protocol"',
  }),
  noH2c: (n: string[]): Problem => ({
    path: 'protocol',
    message:
      `${doNot(n)} h2c (HTTP/2 in clear): "h2c" cells need an app added with --http2 h2c; ` +
      'leave "h2c" out of "protocol"',
  }),
  h2cOnly: (n: string[]): Problem => ({
    path: 'protocol',
    message: `${serve(n)} HTTP/2 in clear only (--http2 h2c): give "protocol": ["h2c"] so every cell of it speaks h2c`,
  }),
};

/** Every cell link some app does not serve, said once per reason with the apps it concerns. */
export function linkProblems(links: readonly Link[], apps: readonly Serving[]): Problem[] {
  const names = new Map<keyof typeof WORDS, string[]>();
  for (const a of apps) {
    const why = new Set(links.map((l) => refusal(a, l)).filter((w) => w !== undefined));
    for (const w of why) names.set(w, [...(names.get(w) ?? []), a.name]);
  }
  const reasons = Object.keys(WORDS) as (keyof typeof WORDS)[];
  return reasons.flatMap((k) => (names.has(k) ? [WORDS[k](names.get(k)!)] : []));
}

/** The link an app's try-out speaks: its cells' own (HTTP/2 where it serves it, else HTTPS or plain HTTP/1.1). */
export const tryLink = (a: Omit<Serving, 'name'>): Link =>
  a.http2 === 'h2c'
    ? { protocol: 'h2c' }
    : a.http2 === 'h2'
      ? { tls: true, protocol: 'h2' }
      : a.tls
        ? { tls: true }
        : {};

/** What it serves, as `apps list` says it. */
export const servesWords = (a: Serving): string =>
  a.builtIn ? 'any' : a.http2 === 'h2c' ? 'h2c' : a.http2 === 'h2' ? 'HTTPS, h2' : a.tls ? 'HTTPS' : 'HTTP/1.1';
