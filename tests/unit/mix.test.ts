// The mix on one connection, without a server: proportions from the seeded generator, every template,
// the Zipf skew against its distribution, captures (JSON path, header, regex, failed) and sequences.
import { describe, expect, it } from 'vitest';
import { compileMix, ConnectionMix, type Outgoing } from '../../src-main/mix/connection.ts';
import { mixRoutes, offShares } from '../../src-main/mix/routes.ts';
import { parseTemplate } from '../../src-main/mix/template.ts';
import { zipfProbability } from '../../src-main/mix/zipf.ts';
import { MixSchema } from '../../src-main/apps/request-schema.ts';
import type { MixEntry } from '../../src-main/model/requests.ts';

const HOST = 'h:1';
const connection = (entries: MixEntry[], c = 0, of = 1, csv = {}): ConnectionMix =>
  new ConnectionMix(compileMix({ entries, csv }, HOST), c, of);
const line = (o: Outgoing): string => o.requestBuffer.toString().split('\r\n')[0]!;
const draw = (m: ConnectionMix, n: number): string[] => Array.from({ length: n }, () => line(m.next()));

describe('weighted choice', () => {
  const mix: MixEntry[] = [
    { method: 'GET', path: '/a', weight: 6 },
    { method: 'GET', path: '/b', weight: 3 },
    { method: 'POST', path: '/c', weight: 1 },
  ];

  it('sends each request in proportion to its weight, within 1 point over 20,000 requests', () => {
    const sent = draw(connection(mix), 20_000);
    const share = (p: string): number => sent.filter((l) => l.startsWith(p)).length / sent.length;
    expect(share('GET /a ')).toBeCloseTo(0.6, 1);
    expect(Math.abs(share('GET /a ') - 0.6)).toBeLessThan(0.01);
    expect(Math.abs(share('GET /b ') - 0.3)).toBeLessThan(0.01);
    expect(Math.abs(share('POST /c ') - 0.1)).toBeLessThan(0.01);
  });

  it('repeats exactly from the seed; another connection draws another order', () => {
    expect(draw(connection(mix, 3, 8), 200)).toEqual(draw(connection(mix, 3, 8), 200));
    expect(draw(connection(mix, 4, 8), 200)).not.toEqual(draw(connection(mix, 3, 8), 200));
  });

  it('without weights sends the requests in turn, first to last', () => {
    const m = connection([{ method: 'GET', path: '/1' }, { method: 'GET', path: '/2' }]);
    expect(draw(m, 4)).toEqual(['GET /1 HTTP/1.1', 'GET /2 HTTP/1.1', 'GET /1 HTTP/1.1', 'GET /2 HTTP/1.1']);
  });

  it("counts a sequence's steps in the shares the weights ask for", () => {
    const r = mixRoutes([
      { method: 'GET', path: '/a', weight: 2 },
      { sequence: [{ method: 'POST', path: '/login' }, { method: 'GET', path: '/me' }], weight: 1 },
    ]);
    expect(r.names).toEqual(['GET /a', 'POST /login', 'GET /me']);
    expect(r.expected).toEqual([0.5, 0.25, 0.25]);
    expect(offShares([{ route: 'GET /a', share: 0.53, expectedShare: 0.5 }])).toEqual([
      'GET /a got 53.0 % of requests, its weight asks 50.0 %',
    ]);
    expect(offShares([{ route: 'GET /a', share: 0.515, expectedShare: 0.5 }])).toEqual([]);
  });
});

describe('templates', () => {
  const values = (path: string, n = 2000, csv = {}): string[] =>
    draw(connection([{ method: 'GET', path: `/${path}` }], 0, 1, csv), n).map((l) => l.split(' ')[1]!.slice(1));

  it('{{int}} is uniform over its whole range, ends included', () => {
    const v = values('{{int 1 5}}', 5000).map(Number);
    for (let k = 1; k <= 5; k++) expect(Math.abs(v.filter((x) => x === k).length / 5000 - 0.2)).toBeLessThan(0.03);
    expect(v.every((x) => x >= 1 && x <= 5)).toBe(true);
  });

  it('{{zipf}} follows its distribution: the head as hot as 1/k^s says', () => {
    const n = 40_000;
    const v = values('{{zipf 1 1000 1.1}}', n).map(Number);
    for (const k of [1, 2, 10]) {
      const p = zipfProbability(k, 1000, 1.1);
      const seen = v.filter((x) => x === k).length / n;
      expect(Math.abs(seen - p), `rank ${k}: ${seen} against ${p}`).toBeLessThan(4 * Math.sqrt((p * (1 - p)) / n));
    }
    expect(zipfProbability(1, 1000, 1.1)).toBeGreaterThan(0.1); // hot at the head, unlike {{int}}'s 0.001
    expect(v.every((x) => x >= 1 && x <= 1000)).toBe(true);
  });

  it('{{pick}}, {{uuid}}, {{seq}} and {{csv}} draw their values', () => {
    expect(new Set(values('{{pick a b c}}', 300))).toEqual(new Set(['a', 'b', 'c']));
    const ids = values('{{uuid}}', 50);
    expect(new Set(ids).size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // {{seq}}: connection 2 of 3 gets 2, 5, 8: no other connection of the cell gets those.
    const seq = draw(connection([{ method: 'GET', path: '/{{seq}}' }], 2, 3), 3).map((l) => l.split(' ')[1]);
    expect(seq).toEqual(['/2', '/5', '/8']);
    const csv = { 'ids.csv': { id: ['7', '8'], name: ['seven', 'eight'] } };
    const pairs = values('{{csv ids.csv id}}-{{csv ids.csv name}}', 100, csv);
    expect(new Set(pairs)).toEqual(new Set(['7-seven', '8-eight'])); // one row per request: columns stay together
  });

  it('fills headers and bodies too, with a Content-Length of the drawn body', () => {
    const m = connection([{ method: 'POST', path: '/o', headers: { 'x-id': '{{int 5 5}}' }, body: '{"n":{{int 10 10}}}' }]);
    const text = m.next().requestBuffer.toString();
    expect(text).toContain('x-id: 5\r\n');
    expect(text).toContain('Content-Length: 8\r\n');
    expect(text.endsWith('\r\n\r\n{"n":10}')).toBe(true);
  });

  it('says what is wrong with a template, and what to write', () => {
    expect(parseTemplate('/a/{{int 1}}')).toEqual({ problem: '{{int 1}}: write {{int MIN MAX}}, e.g. {{int 1 5000}} (whole numbers)' });
    expect(parseTemplate('/{{zipf 1 2000000 1}}')).toMatchObject({ problem: expect.stringContaining('at most 1,000,000') });
    expect(parseTemplate('/{{int 9 1}}')).toEqual({ problem: '{{int 9 1}}: MIN (9) is above MAX (1)' });
    expect(parseTemplate('/{{nope 1}}')).toMatchObject({ problem: expect.stringContaining('is not a template') });
    expect(parseTemplate('/{{uuid')).toEqual({ problem: '"{{" at character 2 is never closed with "}}"' });
  });
});

describe('captures and sequences', () => {
  const flow: MixEntry[] = [
    {
      sequence: [
        { method: 'POST', path: '/login', capture: { token: { json: '$.token' } } },
        { method: 'GET', path: '/me', headers: { authorization: 'Bearer {{token}}' }, capture: { loc: { header: 'Location' } } },
        { method: 'GET', path: '{{loc}}', capture: { id: { regex: 'id=(\\d+)' } } },
        { method: 'GET', path: '/orders/{{id}}' },
      ],
    },
  ];

  it('passes a JSON path, a header and a regex on to the next steps', () => {
    const m = connection(flow);
    const login = m.next();
    expect(m.answered(login, 200, '{"token":"t0k"}', [])).toBeUndefined();
    const me = m.next();
    expect(me.requestBuffer.toString()).toContain('authorization: Bearer t0k\r\n');
    expect(m.answered(me, 200, '', ['location', '/next'])).toBeUndefined();
    const next = m.next();
    expect(line(next)).toBe('GET /next HTTP/1.1');
    expect(m.answered(next, 200, 'order id=42 ok', [])).toBeUndefined();
    expect(line(m.next())).toBe('GET /orders/42 HTTP/1.1');
  });

  it('a failed capture fails its step with the reason, and the sequence starts anew', () => {
    const m = connection(flow);
    const login = m.next();
    expect(m.answered(login, 200, '{"nope":1}', [])).toBe('capture token: $.token not in the 200 response');
    expect(line(m.next())).toBe('POST /login HTTP/1.1');
  });

  it('a step without its expected status fails with the server’s words', () => {
    const m = connection([{ method: 'POST', path: '/o', status: 201 }]);
    const o = m.next();
    expect(m.answered(o, 200, '', [])).toBe('200');
    expect(m.answered(o, 503, '{"error":"too busy"}', [])).toBe('503 too busy');
    expect(m.answered(o, 201, '', [])).toBeUndefined();
  });

  it('the schema refuses a value captured by no earlier step, and a weight on a step', () => {
    const r = MixSchema.safeParse([
      { sequence: [{ path: '/me', headers: { a: '{{token}}' } }, { path: '/x', weight: 2 }] },
      { path: '/{{id}}' },
    ]);
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([
      '0.sequence.0.headers.a: {{token}} is captured by no earlier step of this sequence',
      '0.sequence.1.weight: a step of a sequence has no weight of its own: weigh the sequence',
      '1.path: {{id}} is captured by no earlier step: captures pass values between the steps of a sequence',
    ]);
  });
});
