import { describe, expect, it } from 'vitest';
import { recommend } from '../../src-main/analysis/index.ts';
import { optionOf, optionProblems } from '../../src-main/apps/option-words.ts';
import { dependencyFault, trySuggestions, type TryProbe } from '../../src-main/apps/try-out.ts';
import { sameFailureReason, skippedAfter, skippedFailure } from '../../src-main/engine/run/same-failure.ts';
import { cell, run } from '../helpers/run-fixture.ts';

const probe = (kind: TryProbe['kind'], path: string, statuses: (number | undefined)[], expected: TryProbe['expected'] = '2xx', method = 'GET'): TryProbe => {
  const answers = statuses.map((s) => (s === undefined ? { error: 'ECONNRESET' } : { status: s, ms: 2 }));
  const ok = statuses.every((s) => s !== undefined && (expected === '2xx' ? s >= 200 && s < 300 : s === expected));
  return { kind, method, path, expected, answers, ok };
};
const found = (probes: TryProbe[]) => ({ answered: true, probes, waitedSec: 0.3 });

describe('what a try-out suggests', () => {
  it('a health path answering 404 while a GET request answers 2xx: that request path as the health path', () => {
    const s = trySuggestions(found([probe('health', '/', [404, 404, 404]), probe('request', '/items/7', [200, 200, 200], 200)]), { port: 3000 });
    expect(s).toEqual([{ kind: 'health', path: '/items/7', because: 'the health path / answered 404, while GET /items/7 answered 200 ×3' }]);
  });

  it('a usual health path that answered 2xx comes before a request path', () => {
    const s = trySuggestions(
      found([probe('health', '/', [404, 404, 404]), probe('request', '/items/7', [200, 200, 200], 200), probe('guess', '/health', [200])]),
      { port: 3000 },
    );
    expect(s[0]).toMatchObject({ kind: 'health', path: '/health' });
  });

  it('a POST, or a request that did not get 2xx, is not offered as a health path', () => {
    const s = trySuggestions(
      found([probe('health', '/', [500, 500, 500]), probe('request', '/items', [201, 201, 201], 201, 'POST'), probe('request', '/gone', [404, 404, 404], 404)]),
      { port: 3000 },
    );
    expect(s).toEqual([{ kind: 'note', text: 'the health path / answered 500: give a path that answers 2xx to GET once the app is up' }]);
  });

  it('a healthy app with every request as expected: nothing to change', () => {
    expect(trySuggestions(found([probe('health', '/health', [200, 200, 200]), probe('request', '/', [200, 200, 200])]), { port: 3000 })).toEqual([]);
  });

  it('a request answering another status than its own: its path or its expected status', () => {
    const s = trySuggestions(found([probe('health', '/health', [200, 200, 200]), probe('request', '/items/999', [404, 404, 404], 200)]), { port: 3000 });
    expect(s).toEqual([{ kind: 'note', text: 'GET /items/999 answered 404 ×3, not 200: check the path and the expected status' }]);
  });

  it('nothing answered: the port (or, when the app exited, its log)', () => {
    expect(trySuggestions({ answered: false, probes: [], waitedSec: 30 }, { port: 8080 })[0]).toMatchObject({
      kind: 'note',
      text: expect.stringMatching(/^nothing answered on port 8080 within 30 s: check the port/),
    });
    expect(trySuggestions({ answered: false, probes: [], waitedSec: 1, exitCode: 1 }, { port: 8080 })[0]).toMatchObject({
      text: 'the app exited with code 1 before it answered: its last log lines say why',
    });
  });
});

describe("a user app's problems name the options typed", () => {
  it('each field of the definition as its option', () => {
    expect(optionOf('source.dir')).toBe('--folder');
    expect(optionOf('source.entry')).toBe('--entry');
    expect(optionOf('source.ecosystem')).toBe('--ecosystem');
    expect(optionOf('source.ecosystemApp')).toBe('--ecosystem-app');
    expect(optionOf('source.image')).toBe('--image');
    expect(optionOf('source.workersEnv')).toBe('--workers-env');
    expect(optionOf('source.args.0')).toBe('--arg');
    expect(optionOf('port')).toBe('--port');
    expect(optionOf('health')).toBe('--health');
    expect(optionOf('env.1BAD')).toBe('--env 1BAD');
    expect(optionOf('requests.1.status')).toBe('--request 2 (status)');
    expect(optionOf('requests')).toBe('--request');
    expect(optionOf('name')).toBe('the name');
  });

  it('no problem of a bad folder keeps an internal field name', () => {
    const words = optionProblems([{ path: 'source.dir', message: 'the folder /nonexistent does not exist' }]);
    expect(words).toEqual([{ path: '--folder', message: 'the folder /nonexistent does not exist' }]);
  });
});

describe('skipping the cells of an app whose first cell failed at start', () => {
  const notReady = (why: string) => ({ status: 'failed' as const, failure: `not ready: ${why}\nlog line` });

  it('skips after failures no cap changes: a health status, an exit with an error', () => {
    expect(sameFailureReason(notReady('not ready within 31 s (health answered 404)'))).toBe('health answered 404');
    expect(sameFailureReason(notReady('the container exited with code 1 before it was ready'))).toBe('the app exited with code 1 at start');
  });

  it('does not skip after failures a cell may cause: no answer in time, a signal, an OOM kill, a load failure', () => {
    expect(sameFailureReason(notReady('not ready within 31 s (connect ECONNREFUSED 172.17.0.3:3000)'))).toBeUndefined();
    expect(sameFailureReason(notReady('the container exited with code 137 before it was ready'))).toBeUndefined();
    expect(sameFailureReason({ status: 'oom', failure: 'not ready: (health answered 503)' })).toBeUndefined();
    expect(sameFailureReason({ ...notReady('not ready within 31 s (health answered 503)'), exit: { oomKilled: true, exitCode: 137, restarts: 0 } })).toBeUndefined();
    expect(sameFailureReason({ status: 'failed', failure: 'the container exited with code 1 during the load' })).toBeUndefined();
    expect(sameFailureReason({ status: 'ok' })).toBeUndefined();
  });

  it('the skipped failure names the cell as the user numbers it, and reads back', () => {
    expect(skippedFailure(1, 'health answered 404')).toBe('skipped: same failure as cell 1 (health answered 404)');
    expect(skippedAfter(skippedFailure(12, 'x'))).toBe(12);
    expect(skippedAfter('not ready: …')).toBeUndefined();
  });

  it('the answer says it once per app, and counts every excluded cell', () => {
    const first = cell({ app: 'koa', mode: 'single', cpu: 500, status: 'failed', failure: 'not ready: not ready within 31 s (health answered 404)\nlog' });
    const skipped = [1000, 2000].map((cpu) => cell({ app: 'koa', mode: 'single', cpu, status: 'failed', failure: skippedFailure(1, 'health answered 404') }));
    const hello = [500, 1000, 2000].map((cpu) => cell({ app: 'hello', cpu, rps: cpu }));
    const rec = recommend(run([first, ...skipped, ...hello]));
    expect(rec.run.cellsExcluded).toBe(3);
    const koa = rec.words.filter((w) => w.includes('koa'));
    expect(koa).toHaveLength(1);
    expect(koa[0]).toMatch(/: failed \(not ready: not ready within 31 s \(health answered 404\)\), excluded; its 2 other cells of koa skipped at once \(the same failure expected\), excluded too\.$/);
    // Each configuration still lists its own excluded cell.
    expect(rec.configurations.filter((c) => c.app === 'koa').map((c) => c.excluded[0]!.reason)).toEqual([
      'failed (not ready: not ready within 31 s (health answered 404))',
      'skipped: same failure as cell 1 (health answered 404)',
      'skipped: same failure as cell 1 (health answered 404)',
    ]);
  });
});

describe('a dependency the app could not reach is named, not the health path (issue 41)', () => {
  const deps = [{ name: 'db', image: 'postgres:16', port: 5432 }, { name: 'cache', image: 'redis:7', port: 6379 }];
  const health503 = { kind: 'health' as const, method: 'GET', path: '/healthz', expected: '2xx' as const, answers: [{ status: 503 }], ok: false };

  it('by its port on a refused connection, by its name on a failed lookup, by its words on a refused login', () => {
    expect(dependencyFault(['Error: connect ECONNREFUSED 172.18.0.2:5432'], deps)).toMatch(/^the app could not use its dependency db \(postgres:16\): its log says "Error: connect ECONNREFUSED 172\.18\.0\.2:5432"/);
    expect(dependencyFault(['Error: getaddrinfo ENOTFOUND cache'], deps)).toMatch(/dependency cache \(redis:7\)/);
    expect(dependencyFault([`error: password authentication failed for user "shop"`], deps)).toMatch(/dependency db/);
    expect(dependencyFault(['listening on 3000', 'GET /healthz 404'], deps)).toBeUndefined();
    expect(dependencyFault(['connect ECONNREFUSED 10.0.0.1:9999'], deps)).toBeUndefined(); // not one of its dependencies
  });

  it('replaces "give a path that answers 2xx" when the log shows it', () => {
    const r = { answered: true, probes: [health503], waitedSec: 2, logTail: ['Error: connect ECONNREFUSED 172.18.0.2:5432'] };
    const s = trySuggestions(r, { port: 3000, dependencies: deps });
    expect(s).toEqual([{ kind: 'note', text: expect.stringMatching(/dependency db .* the health path is not the problem$/) }]);
    expect(trySuggestions({ ...r, logTail: [] }, { port: 3000, dependencies: deps })[0]).toMatchObject({ text: expect.stringMatching(/give a path that answers 2xx/) });
  });
});
