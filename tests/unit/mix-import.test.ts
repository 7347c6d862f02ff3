// Importing real traffic as a mix (src-main/mix/import): a HAR, an access log and a JSON-lines log grouped
// into weighted routes whose ids are drawn from the values seen, and refusals that name the bad line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ImportOutcome, importRequests } from '../../src-main/mix/import/index.ts';
import { parseTemplate } from '../../src-main/mix/template.ts';
import type { RequestSpec } from '../../src-main/model/requests.ts';

const DIR = join(import.meta.dirname, '../fixtures/import');
const fixture = (name: string): string => readFileSync(join(DIR, name), 'utf8');

type Imported = Extract<ImportOutcome, { ok: true }>;

function imported(outcome: ImportOutcome): Imported {
  if (!outcome.ok) throw new Error(`expected an import, got: ${outcome.problem}`);
  // Every path, header and body the load generator would read parses as a template.
  for (const r of outcome.requests)
    for (const text of [r.path, r.body ?? '', ...Object.values(r.headers ?? {})])
      expect(parseTemplate(text), `${r.name}: ${text}`).not.toHaveProperty('problem');
  return outcome;
}

const problemOf = (outcome: ImportOutcome): string => {
  if (outcome.ok) throw new Error('expected a refusal');
  return outcome.problem;
};

const byName = (rs: readonly RequestSpec[], name: string): RequestSpec => {
  const r = rs.find((x) => x.name === name);
  if (!r) throw new Error(`no route ${name} among ${rs.map((x) => x.name).join(', ')}`);
  return r;
};

/** A combined log line of one request. */
const line = (target: string, method = 'GET', status = 200): string =>
  `203.0.113.5 - - [10/Oct/2024:13:55:36 -0700] "${method} ${target} HTTP/1.1" ${status} 100 "-" "curl/8.5.0"`;

describe('a HAR', () => {
  const har = fixture('shop.har');

  it('groups the API calls of the main host into routes, by weight then name', () => {
    const out = imported(importRequests(har, 'shop.har'));
    expect(out.format).toBe('har');
    expect(out.routes).toEqual([
      { route: 'GET /api/products/{id}', weight: 4, count: 4, example: '/api/products/7' },
      { route: 'GET /api/search?page={page}&q={q}', weight: 3, count: 3, example: '/api/search?q=shoes&page=1' },
      { route: 'POST /api/cart', weight: 3, count: 3, example: '/api/cart' },
      { route: 'GET /account', weight: 2, count: 2, example: '/account' },
      {
        route: 'GET /api/users/{uuid}/orders',
        weight: 2,
        count: 2,
        example: '/api/users/3f2b8c1e-9a4d-4c7b-8e2f-1a2b3c4d5e6f/orders',
      },
      { route: 'GET /', weight: 1, count: 1, example: '/' },
    ]);
    expect(out.requests.map((r) => [r.name, r.weight])).toEqual(out.routes.map((r) => [r.route, r.weight]));
    // Scripts, styles, images and fonts (by extension or by Chrome's resource type); analytics and a partner
    // API; a CORS preflight, an answer from the browser's cache and a data: URL.
    expect(out.dropped).toEqual({ static: 5, otherHosts: 2, other: 3 });
    expect(out.total).toBe(25);
  });

  it('draws ids and query values from those seen, the most frequent first', () => {
    const { requests } = imported(importRequests(har, 'shop.har'));
    expect(byName(requests, 'GET /api/products/{id}').path).toBe('/api/products/{{pick 7 12 3}}');
    // Parameters in one order whatever the order sent; "red hats" stays one word.
    expect(byName(requests, 'GET /api/search?page={page}&q={q}').path).toBe(
      '/api/search?page={{pick 1 2}}&q={{pick shoes red%20hats}}',
    );
    expect(byName(requests, 'GET /api/users/{uuid}/orders').path).toBe(
      '/api/users/{{pick 3f2b8c1e-9a4d-4c7b-8e2f-1a2b3c4d5e6f 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d}}/orders',
    );
  });

  it('keeps the most frequent body with its content type, and no other header', () => {
    const cart = byName(imported(importRequests(har, 'shop.har')).requests, 'POST /api/cart');
    expect(cart).toEqual({
      name: 'POST /api/cart',
      method: 'POST',
      path: '/api/cart',
      headers: { 'content-type': 'application/json' },
      body: '{"productId":7,"qty":1}',
      weight: 3,
    });
  });

  it('expects the status a route mostly got only when it is no 2xx', () => {
    const { requests } = imported(importRequests(har, 'shop.har'));
    expect(byName(requests, 'GET /account').status).toBe(302);
    expect(byName(requests, 'GET /api/products/{id}')).not.toHaveProperty('status');
  });

  it('keeps static assets with keepStatic (the CDN then counts as another host)', () => {
    const out = imported(importRequests(har, 'shop.har', { keepStatic: true }));
    expect(out.dropped).toEqual({ static: 0, otherHosts: 3, other: 3 });
    expect(out.routes.map((r) => r.route)).toEqual(
      expect.arrayContaining(['GET /static/app.js', 'GET /img/logo.png', 'GET /fonts/inter']),
    );
  });

  it('keeps every host with allHosts, and another host when named', () => {
    const all = imported(importRequests(har, 'shop.har', { allHosts: true }));
    expect(all.dropped).toEqual({ static: 5, otherHosts: 0, other: 3 });
    expect(all.routes.map((r) => r.route)).toEqual(expect.arrayContaining(['POST /collect', 'GET /v1/rates']));
    const partner = imported(importRequests(har, 'shop.har', { host: 'api.partner.example.org' }));
    expect(partner.routes.map((r) => r.route)).toEqual(['GET /v1/rates']);
    expect(partner.dropped.otherHosts).toBe(16);
  });

  it('refuses a host that has nothing, saying which hosts there are', () => {
    const problem = problemOf(importRequests(har, 'shop.har', { host: 'nowhere.example' }));
    expect(problem).toMatch(
      /^no requests left after dropping 5 static assets, 17 of other hosts than nowhere\.example/,
    );
    expect(problem).toContain('(hosts seen: shop.example.com, analytics.example.net and api.partner.example.org)');
    expect(problem).toMatch(/ and 3 other .*: use keepStatic\/allHosts$/);
  });

  it('names the line of a JSON syntax error', () => {
    // The comma missing at the end of line 9: JSON.parse stops at the next property, line 10.
    expect(problemOf(importRequests(fixture('broken.har'), 'broken.har'))).toBe(
      `line 10: the HAR is not valid JSON (Expected ',' or '}' after property value): ""headers": []"`,
    );
    // A trailing comma: V8 gives no position, only the text around the token, found again here.
    const trailing = '{\n  "log": {\n    "entries": [\n      { "request": {} },\n    ]\n  }\n}\n';
    expect(problemOf(importRequests(trailing, 'x.har'))).toBe(
      `line 5: the HAR is not valid JSON (Unexpected token ']'): "]"`,
    );
    // Minified on one line: quoted from a little before where it stopped.
    const minified = `{"log":{"entries":[${'{"request":{"method":"GET","url":"https://a.example/x"}},'.repeat(3)}]}}`;
    expect(problemOf(importRequests(minified, 'x.har'))).toBe(
      `line 1: the HAR is not valid JSON (Unexpected token ']'): "…ps://a.example/x"}},]}}"`,
    );
    expect(problemOf(importRequests('{\n  "log": {\n    "entries": [\n', 'x.har'))).toMatch(
      /^line 3: the HAR is not valid JSON \(Unexpected end of JSON input\)/,
    );
  });

  it('refuses JSON without log.entries, and an entry without a request', () => {
    expect(problemOf(importRequests('{\n  "log": { "version": "1.2" }\n}\n', 'x.json'))).toMatch(
      /^not a HAR: .*log\.entries array.*a log without an entries array$/,
    );
    expect(problemOf(importRequests('{"log":{"entries":[{"response":{}}]}}', 'x.har'))).toBe(
      'log.entries[0] (request 1) has no request with a method and a url',
    );
  });
});

describe('an access log', () => {
  it('reads combined and common lines, drops static files and what names no request', () => {
    const out = imported(importRequests(fixture('access.log'), 'access.log'));
    expect(out.format).toBe('combined');
    expect(out.requests).toEqual([
      { name: 'GET /account', method: 'GET', path: '/account', status: 304, weight: 3 },
      { name: 'GET /products/{id}', method: 'GET', path: '/products/{{pick 7 8}}', weight: 3 },
      {
        name: 'GET /products/{id}/reviews?page={page}&sort=new',
        method: 'GET',
        path: '/products/{{pick 7 9}}/reviews?page={{pick 2 3}}&sort=new',
        weight: 2,
      },
      { name: 'POST /orders', method: 'POST', path: '/orders', weight: 2 },
      { name: 'GET /health', method: 'GET', path: '/health', weight: 1 },
    ]);
    // app.js and favicon.ico; OPTIONS * and a TLS handshake sent to the HTTP port.
    expect(out.dropped).toEqual({ static: 2, otherHosts: 0, other: 2 });
    expect(out.total).toBe(15);
  });

  it('keeps static files with keepStatic', () => {
    const out = imported(importRequests(fixture('access.log'), 'access.log', { keepStatic: true }));
    expect(out.routes.map((r) => r.route)).toEqual(expect.arrayContaining(['GET /static/app.js', 'GET /favicon.ico']));
    expect(out.dropped.static).toBe(0);
  });

  it('picks among up to 50 distinct numbers, draws from the range above that', () => {
    const ids = (n: number): string => Array.from({ length: n }, (_, i) => line(`/items/${100 + i * 3}`)).join('\n');
    const fifty = imported(importRequests(ids(50), 'a.log')).requests[0]!;
    expect(fifty.path).toMatch(/^\/items\/\{\{pick 100 103 106 .* 247\}\}$/);
    expect(parseTemplate(fifty.path)).toMatchObject({ template: ['/items/', { fn: 'pick' }] });
    const many = imported(importRequests(ids(51), 'a.log')).requests[0]!;
    expect(many).toEqual({ name: 'GET /items/{id}', method: 'GET', path: '/items/{{int 100 250}}', weight: 1 });
  });

  it('picks among the 20 most frequent words of a query parameter', () => {
    const words = Array.from({ length: 25 }, (_, i) => `w${i}`);
    const log = [...words, 'w24', 'w24'].map((w) => line(`/search?q=${w}`)).join('\n');
    const { path } = imported(importRequests(log, 'a.log')).requests[0]!;
    expect(path).toBe(`/search?q={{pick w24 ${words.slice(0, 19).join(' ')}}}`);
  });

  it('names several ids of one route apart, and keeps a single value as it is', () => {
    const log = [line('/users/1/posts/10'), line('/users/2/posts/10')].join('\n');
    expect(imported(importRequests(log, 'a.log')).requests).toEqual([
      { name: 'GET /users/{id}/posts/{id2}', method: 'GET', path: '/users/{{pick 1 2}}/posts/10', weight: 1 },
    ]);
  });

  it('weights in the smallest whole numbers of the same shares', () => {
    const log = [...Array(6).fill(line('/a')), ...Array(4).fill(line('/b', 'POST', 201))].join('\n');
    expect(imported(importRequests(log, 'a.log')).routes).toEqual([
      { route: 'GET /a', weight: 3, count: 6, example: '/a' },
      { route: 'POST /b', weight: 2, count: 4, example: '/b' },
    ]);
  });

  it('refuses a bad line, naming it and quoting its start', () => {
    expect(problemOf(importRequests(fixture('malformed.log'), 'malformed.log'))).toBe(
      'line 3: not a combined log line nor JSON with method and path: ' +
        '"GET /products/9 200 this line was pasted from somewhere else…"',
    );
  });

  it('refuses a log with nothing left, saying what was dropped', () => {
    const log = [line('/app.js'), line('/logo.png'), line('/x', 'OPTIONS')].join('\n');
    expect(problemOf(importRequests(log, 'a.log'))).toMatch(
      /^no requests left after dropping 2 static assets and 1 other .*: use keepStatic$/,
    );
    expect(problemOf(importRequests('\n\n', 'a.log'))).toBe('no requests in the file');
  });
});

describe('a JSON-lines log', () => {
  it('reads method and path, url, uri, a request line and pino-http records', () => {
    const out = imported(importRequests(fixture('requests.jsonl'), 'requests.jsonl'));
    expect(out.format).toBe('jsonl');
    expect(out.requests).toEqual([
      {
        name: 'GET /api/items/{id}?fields=name',
        method: 'GET',
        path: '/api/items/{{pick 4 3}}?fields=name',
        weight: 2,
      },
      { name: 'POST /api/items', method: 'POST', path: '/api/items', weight: 2 },
      { name: 'DELETE /api/items/{id}', method: 'DELETE', path: '/api/items/5', weight: 1 },
      { name: 'GET /api/items/{id}', method: 'GET', path: '/api/items/3', weight: 1 },
    ]);
    // The app's own "server listening" message, and a stylesheet.
    expect(out.dropped).toEqual({ static: 1, otherHosts: 0, other: 1 });
    expect(out.total).toBe(8);
  });

  it('reads one line of JSON as JSON lines, whatever the file name', () => {
    const out = imported(importRequests('{"method":"GET","path":"/x","status":200}\n', 'export.txt'));
    expect(out.format).toBe('jsonl');
    expect(out.routes).toEqual([{ route: 'GET /x', weight: 1, count: 1, example: '/x' }]);
  });

  it('names a line that does not parse, or has a method and no path', () => {
    const text = '{"method":"GET","path":"/x"}\n{"method":"GET","path":"/y"\n';
    expect(problemOf(importRequests(text, 'a.jsonl'))).toMatch(/^line 2: not valid JSON \(.+\): "\{"method"/);
    expect(problemOf(importRequests('{"method":"GET","path":"/x"}\n{"method":"GET"}\n', 'a.jsonl'))).toBe(
      'line 2: JSON with a method but no path, or a path but no method: "{"method":"GET"}"',
    );
  });
});
