import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { untilNamesResolve } from '../../src-main/providers/swarm/names-resolve.ts';

// The wait's rules, on containers whose `node -e dns.lookup` answers as scripted. That the real exec
// answers so is distributed.test.ts's part (a two-node Swarm, the name asked once from the app's node).
type Answer = number | Error;
function container(answers: (name: string, ask: number) => Answer): { c: Docker.Container; asked: string[] } {
  const asked: string[] = [];
  const c = {
    async exec(o: { Cmd: string[] }) {
      const name = o.Cmd.at(-1)!;
      asked.push(name);
      const a = answers(name, asked.filter((n) => n === name).length);
      if (a instanceof Error) throw a;
      return {
        async start() {
          const s = new PassThrough();
          setImmediate(() => s.end());
          return s;
        },
        async inspect() {
          return { ExitCode: a };
        },
      };
    },
  } as unknown as Docker.Container;
  return { c, asked };
}

describe('untilNamesResolve: the app starts once its dependencies have names on its node', () => {
  it('asks again until every name resolves in every container', async () => {
    const a = container((name, ask) => (name === 'db' && ask < 3 ? 1 : 0));
    const b = container(() => 0);
    await untilNamesResolve([a.c, b.c], ['db', 'cache'], undefined, { pollMs: 1 });
    expect(a.asked.filter((n) => n === 'db')).toHaveLength(3);
    expect(a.asked.filter((n) => n === 'cache')).toHaveLength(1); // found once, not asked again
    expect(b.asked.sort()).toEqual(['cache', 'db']);
  });

  it('past the deadline: fails naming only the names still unknown', async () => {
    const a = container((name) => (name === 'db' ? 1 : 0));
    await expect(untilNamesResolve([a.c], ['db', 'cache'], undefined, { deadlineMs: 30, pollMs: 5 })).rejects.toThrow(
      /could not resolve "db" after 0 s/,
    );
  });

  it('an image without node cannot ask: no wait at all', async () => {
    const missing = container(() => new Error('OCI runtime exec failed: exec: "node": executable file not found in $PATH'));
    const t0 = Date.now();
    await untilNamesResolve([missing.c], ['db'], undefined, { deadlineMs: 10_000, pollMs: 5 });
    expect(missing.asked).toEqual(['db']);
    expect(Date.now() - t0).toBeLessThan(5000);
    const notFound = container(() => 127);
    await untilNamesResolve([notFound.c], ['db'], undefined, { deadlineMs: 10_000, pollMs: 5 });
    expect(notFound.asked).toEqual(['db']);
  });

  it('a cancel ends the wait', async () => {
    const a = container(() => 1);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 20);
    await expect(untilNamesResolve([a.c], ['db'], ac.signal, { deadlineMs: 10_000, pollMs: 5 })).rejects.toThrow(/cancelled/);
  });
});
