// Any setting as a dimension (issue 41): `envMatrix` gives each combination of values its own cells, each a configuration
// of its own (named, keyed, charted apart), and the deployed one's settings travel into every snippet and verification
// cell exactly as they ran, with the connections a pool size opens.
import type { LoadResult } from '../../src-main/model/types.ts';
import { connectionLimit } from '../../src-main/apps/dependencies.ts';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configurationKey } from '../../src-main/analysis/decide/group.ts';
import { who } from '../../src-main/analysis/names.ts';
import { recommend } from '../../src-main/analysis/recommend.ts';
import { cellLabel } from '../../src-main/common/labels.ts';
import { composeSnippet, kubernetesSnippet, pm2Snippet, type DeployInput } from '../../src-main/deploy/snippets.ts';
import { settingsOfCell, settingsWords } from '../../src-main/deploy/verification.ts';
import { expandMatrix, validateMatrix, type HostLimits, type Matrix } from '../../src-main/engine/matrix.ts';
import { composeProblems, kubernetesContainerProblems } from '../helpers/deploy-schemas.ts';
import { reps, run } from '../helpers/run-fixture.ts';

const host: HostLimits = { cores: 4, memoryMb: 4096, apps: ['shop'] };
const base = { apps: ['shop'], modes: ['cluster'], workers: [2, 4], cpuMillicores: [1000], memoryMb: [256] };
const valid = (input: unknown): Matrix => {
  const v = validateMatrix(input, host);
  if (!v.ok) throw new Error(v.problems.map((p) => `${p.path}: ${p.message}`).join('\n'));
  return v.matrix;
};
const problems = (input: unknown): string[] => {
  const v = validateMatrix(input, host);
  return v.ok ? [] : v.problems.map((p) => `${p.path}: ${p.message}`);
};

describe('envMatrix: each combination of values its own cells', () => {
  it('expands every combination over the other dimensions, each cell with its setting in env and envSet', () => {
    const m = valid({ ...base, env: { LOG_LEVEL: 'warn' }, envMatrix: { PG_POOL_SIZE: ['5', '20'], UV_THREADPOOL_SIZE: ['4', '8'] } });
    const cells = expandMatrix(m);
    expect(cells).toHaveLength(2 * 4);
    expect(cells.map((c) => `${c.workers} ${c.envSet!.PG_POOL_SIZE}/${c.envSet!.UV_THREADPOOL_SIZE}`)).toEqual([
      '2 5/4', '4 5/4', '2 5/8', '4 5/8', '2 20/4', '4 20/4', '2 20/8', '4 20/8',
    ]);
    expect(cells[0]!.env).toEqual({ LOG_LEVEL: 'warn', PG_POOL_SIZE: '5', UV_THREADPOOL_SIZE: '4' });
    // Each setting is a configuration of its own, said in its name and the cell's label.
    expect(new Set(cells.map(configurationKey)).size).toBe(8);
    expect(who({ mode: 'cluster', workers: 2, envSet: cells[0]!.envSet! })).toBe('2 cluster workers (PG_POOL_SIZE=5, UV_THREADPOOL_SIZE=4)');
    expect(cellLabel({ ...cells[0]!, index: 0 })).toBe('shop cluster×2 1000m/256MB c20 PG_POOL_SIZE=5 UV_THREADPOOL_SIZE=4');
    // Without the dimension, cells and keys are as before.
    expect(expandMatrix(valid(base)).every((c) => c.envSet === undefined)).toBe(true);
  });

  it.each([
    [{ envMatrix: { 'PG-POOL': ['5'] } }, 'envMatrix.PG-POOL: PG-POOL is not a variable name: letters, digits and _, not first a digit'],
    [{ envMatrix: { PORT: ['8080'] } }, 'envMatrix.PORT: PORT is set by Rightsize for every cell: it cannot be a dimension'],
    [{ env: { POOL: '5' }, envMatrix: { POOL: ['5', '10'] } }, 'envMatrix.POOL: POOL is also in "env": give it in one place'],
    [{ envMatrix: { POOL: [] } }, 'envMatrix.POOL: give 1 to 8 values (got 0)'],
    [{ envMatrix: { POOL: ['5', '5'] } }, 'envMatrix.POOL: each value only once'],
    [{ envMatrix: {} }, 'envMatrix: names no variable'],
    [{ envMatrix: { A: ['1', '2', '3', '4', '5'], B: ['1', '2', '3', '4'] } }, 'envMatrix: 20 settings (every combination): at most 16'],
    [{ envMatrix: { POOL: [5] } }, expect.stringMatching(/^envMatrix\.POOL\.0: /)],
  ])('refuses %j in words, naming the field', (over, message) => {
    expect(problems({ ...base, ...over })).toContainEqual(message);
  });
});

describe('the deployed setting travels into every snippet, with the connections a pool opens', () => {
  const input = (over: Partial<DeployInput['config']> = {}): DeployInput => ({
    config: { app: 'shop', mode: 'cluster', workers: 4, cpuMillis: 1000, memoryMb: 256, env: { PG_POOL_SIZE: '10' }, ...over },
    provenance: { runId: 3, runName: 'pool', load: { model: 'closed', connections: 64 }, goodput: { mean: 900, low: 880, high: 920 }, p99Us: 9000, confidence: 'confident', pick: 'the knee' },
  });

  it('PM2 env, Kubernetes env and Compose environment carry it; each says replicas × processes × pool', () => {
    const k8s = parse(kubernetesSnippet(input())) as { env: { name: string; value: string }[] };
    expect(k8s.env).toContainEqual({ name: 'PG_POOL_SIZE', value: '10' });
    expect(kubernetesContainerProblems(k8s as never)).toEqual([]);
    const compose = composeSnippet(input({ replicas: 2 }));
    expect((parse(compose) as { services: { shop: { environment: Record<string, string> } } }).services.shop.environment.PG_POOL_SIZE).toBe('10');
    expect(composeProblems(parse(compose))).toEqual([]);
    expect(compose).toContain("# Connections: up to 2 replicas × 4 processes × PG_POOL_SIZE 10 = 80 database connections (check the database's max_connections).");
    const pm2 = pm2Snippet(input());
    expect(pm2).toContain('env: { PG_POOL_SIZE: "10" }');
    expect(pm2).toContain('// Connections: up to 4 processes × PG_POOL_SIZE 10 = 40 database connections');
    // No pool-like variable: no line; none at all: no env entries beyond the worker count.
    expect(kubernetesSnippet(input({ env: { UV_THREADPOOL_SIZE: '8' } }))).not.toContain('Connections:');
    expect(composeSnippet(input({ env: undefined }))).not.toContain('PG_POOL_SIZE');
  });

  it('a verification cell runs the setting, and the snippet reads it back from the cell', () => {
    const cells = [...reps({ app: 'shop', workers: 4 }, [900, 905, 895])].map((c) => ({ ...c, config: { ...c.config, envSet: { PG_POOL_SIZE: '10' }, env: { PG_POOL_SIZE: '10' } } }));
    const rec = recommend(run(cells));
    expect(rec.configurations[0]!.envSet).toEqual({ PG_POOL_SIZE: '10' });
    const s = settingsOfCell({ ...cells[0]!.config, phase: 'verify' });
    expect(s.env).toEqual({ PG_POOL_SIZE: '10' });
    expect(settingsWords(s)).toMatch(/, PG_POOL_SIZE=10$/);
  });
});

describe('the answer says what a pool past the cliff asked for', () => {
  it('a configuration set aside for its failed requests names the connections its pool size opened', () => {
    const withPool = (pool: string, errors: number) => (cs: ReturnType<typeof reps>) =>
      cs.map((c) => ({ ...c, errors, config: { ...c.config, envSet: { PG_POOL_SIZE: pool }, env: { PG_POOL_SIZE: pool } } }));
    const r = run([
      ...withPool('2', 0)(reps({ app: 'catalog', workers: 4 }, [6500, 6550, 6480])),
      ...withPool('10', 2000)(reps({ app: 'catalog', workers: 4 }, [6100, 6150, 6080])),
    ]);
    const words = recommend(r).words.join(' ');
    expect(words).toMatch(/Not picked on 1 CPU \/ 256 MB: 4 cluster workers \(PG_POOL_SIZE=10\) \([\d.]+ % of requests failed \(above 1 %\), at 4 processes × PG_POOL_SIZE 10 = 40 database connections\)/);
  });

  it('what a database takes: max_connections on its command, else PostgreSQL\'s default, else not known', () => {
    expect(connectionLimit({ image: 'postgres:16', command: ['postgres', '-c', 'max_connections=30'] })).toBe(30);
    expect(connectionLimit({ image: 'mysql:8', command: ['mysqld', '--max_connections=250'] })).toBe(250);
    expect(connectionLimit({ image: 'postgres:16' })).toBe(100);
    expect(connectionLimit({ image: 'rightsize/postgres-offline:15-abc', offline: 'postgres' })).toBe(100);
    expect(connectionLimit({ image: 'redis:7' })).toBeUndefined();
  });

  it("and, where the server's failed responses said why, its reason: the connection cliff in the database's words", () => {
    const reasons = { '503 sorry, too many clients already': 1990, '500 boom': 10 };
    const failing = reps({ app: 'catalog', workers: 4 }, [6100, 6150, 6080]).map((c) => ({
      ...c, non2xx: 2000, load: { failureReasons: reasons } as unknown as LoadResult,
      dependencies: [{ name: 'db', image: 'postgres:16', cpuMillis: 1000, memoryMb: 256, maxConnections: 30, seconds: [] }],
      config: { ...c.config, envSet: { PG_POOL_SIZE: '10' }, env: { PG_POOL_SIZE: '10' } },
    }));
    const words = recommend(run([...reps({ app: 'catalog', workers: 2 }, [6500, 6550, 6480]), ...failing])).words.join(' ');
    // Three cells of 2,000 each: the reasons added over the repetitions, the most frequent first.
    expect(words).toContain(
      "% of requests failed (above 1 %), at 4 processes × PG_POOL_SIZE 10 = 40 database connections against db's " +
        'max_connections 30: ' +
        '503 "sorry, too many clients already" (5,970), 500 "boom" (30))',
    );
  });
});
