// The Apps form words a saved sequence itself (src-renderer/lib/mix-words.ts: the renderer cannot run mix/, which
// reads responses with a package): the same text as src-main/mix/describe.ts, which `apps show`, the run page and
// the HTML report use.
import { describe, expect, it } from 'vitest';
import { mixLines, requestText } from '../../src-main/mix/describe.ts';
import type { RequestSpec, SequenceSpec } from '../../src-main/model/requests.ts';
import { requestWords, sequenceWords, stepsWords } from '../../src-renderer/lib/mix-words.ts';

const requests: RequestSpec[] = [
  { method: 'GET', path: '/' },
  { method: 'POST', path: '/items', status: 201, body: '{}', weight: 3, name: 'create' },
  { method: 'GET', path: '/products/{{zipf 1 5000 1.1}}', headers: { accept: 'application/json' } },
  { method: 'POST', path: '/login', capture: { token: { json: '$.token' } } },
  { method: 'GET', path: '/next', status: 302, capture: { where: { header: 'Location' }, id: { regex: 'id=(\\d+)' } } },
];

describe('the Apps form’s words for a mix', () => {
  it('words each request as mix/describe.ts does', () => {
    for (const r of requests) expect(requestWords(r)).toBe(requestText(r));
  });

  it('words a sequence’s steps as mixLines does, with its name and weight in front', () => {
    const login: SequenceSpec = { sequence: [requests[3]!, { method: 'GET', path: '/me' }], weight: 2 };
    const line = mixLines([login, { method: 'GET', path: '/' }])[0]!;
    expect(line.endsWith(stepsWords(login))).toBe(true);
    expect(sequenceWords(login)).toBe('sequence, weight 2: POST /login (takes token from $.token) → GET /me');
    expect(sequenceWords({ sequence: [requests[4]!], name: 'checkout' })).toBe(
      'sequence "checkout", weight 1: GET /next → 302 (takes where from header Location, id from regex /id=(\\d+)/)',
    );
  });
});
