// Reading the team's own Compose file (issue 41): the service under test and what it depends on become an app
// definition with dependencies; what cannot be honoured is refused naming its key, and nothing is returned to save.
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCompose } from '../../src-main/apps/compose/from-compose.ts';
import { durationMs, interpolate, sizeMb, splitCommand } from '../../src-main/apps/compose/compose-values.ts';
import { DependenciesSchema } from '../../src-main/apps/dependencies.ts';
import { optionOf } from '../../src-main/apps/option-words.ts';
import { checkDependenciesHosted } from '../../src-main/engine/run/limits.ts';
import { ROOT } from '../helpers/cli.ts';

const FIXTURE = path.join(ROOT, 'tests/fixtures/compose-shop/docker-compose.yml');
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A Compose file (and any files beside it) in a folder of its own. */
function composeFile(yaml: string, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rightsize-compose-'));
  dirs.push(dir);
  for (const [f, text] of Object.entries({ 'docker-compose.yml': yaml, ...files })) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), text);
  }
  return path.join(dir, 'docker-compose.yml');
}
const problems = (r: ReturnType<typeof readCompose>): string[] => (r.ok ? [] : r.problems.map((p) => p.message));

describe('the service under test and its dependencies', () => {
  it('reads the fixture: build folder, entry from the command, port, health path, environment, db and cache', () => {
    const r = readCompose(FIXTURE, 'api');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.app.source).toEqual({ kind: 'folder', dir: path.dirname(FIXTURE), entry: 'server.js', args: [] });
    expect(r.app).toMatchObject({ port: 3000, health: '/healthz', env: { REDIS_ADDR: 'cache:6379', PG_POOL_SIZE: '5' } });
    const [db, cache] = r.app.dependencies!;
    // Interpolated: the file's default where the shell sets nothing; its own limits; init script mounted read-only.
    expect(db).toMatchObject({ name: 'db', image: 'postgres:16', cpuMillis: 1000, memoryMb: 256, port: 5432 });
    expect(db!.healthcheck).toEqual({ test: ['CMD-SHELL', 'pg_isready -h 127.0.0.1 -U shop -d shop'], intervalMs: 1000, retries: 60 });
    expect(db!.mounts).toEqual([{ source: path.join(path.dirname(FIXTURE), 'db/init.sql'), target: '/docker-entrypoint-initdb.d/init.sql' }]);
    // No health check and no port: the well-known port of the image; default caps.
    expect(cache).toMatchObject({ name: 'cache', image: 'redis:7', port: 6379, cpuMillis: 1000, memoryMb: 512 });
    expect(r.notes).toContain('services.db.volumes: pgdata is not kept: every cell starts db from fresh data');
    // What it gives is a valid dependency list as the app definition checks it.
    expect(DependenciesSchema.safeParse(r.app.dependencies).success).toBe(true);
  });

  it("a folder with its own Dockerfile is built with it, as the team deploys it: its args, stage and command kept", () => {
    const file = composeFile(
      [
        'services:',
        '  api:',
        '    build: { context: ./api, dockerfile: docker/Dockerfile.prod, target: runtime, args: { NODE_IMAGE: "${NODE_IMAGE:-node:20-slim}", DEBUG: null } }',
        '    command: ["node", "server.js", "--fast"]',
        '    expose: ["3000"]',
        '    environment: { WEB_CONCURRENCY: "2" }',
      ].join('\n'),
      { 'api/docker/Dockerfile.prod': 'FROM ${NODE_IMAGE}\n', 'api/server.js': '' },
    );
    const dir = path.join(path.dirname(file), 'api');
    const r = readCompose(file, 'api', 'WEB_CONCURRENCY');
    expect(problems(r)).toEqual([]);
    if (!r.ok) return;
    // DEBUG has no value and the shell sets none: left out, as Compose does.
    expect(r.app.source).toEqual({
      kind: 'dockerfile', dir, dockerfile: 'docker/Dockerfile.prod', buildArgs: { NODE_IMAGE: 'node:20-slim' },
      target: 'runtime', command: ['node', 'server.js', '--fast'], workersEnv: 'WEB_CONCURRENCY',
    });
    expect(r.notes.join(' ')).toContain('built with its own docker/Dockerfile.prod, as the team deploys it');
    // --base rightsize: Rightsize's base and launcher, the entry from the command.
    const own = readCompose(file, 'api', null, 'rightsize');
    expect(own.ok && own.app.source).toEqual({ kind: 'folder', dir, entry: 'server.js', args: ['--fast'] });
    // A Dockerfile the file names that is not there.
    const missing = composeFile('services:\n  api:\n    build: { context: ., dockerfile: Nope }\n    expose: ["3000"]\n');
    expect(problems(readCompose(missing, 'api'))).toEqual([
      `services.api.build.dockerfile: there is no file Nope in ${path.dirname(missing)}`,
    ]);
  });

  it('takes images and values from the shell first, then the .env beside the file', () => {
    const file = composeFile(
      'services:\n  api:\n    image: ${API_IMAGE}\n    expose: ["8080"]\n    depends_on: [db]\n' +
        '  db:\n    image: ${PG:-postgres:16}\n    environment: ["POSTGRES_PASSWORD=${PW}"]\n',
      { '.env': 'API_IMAGE=team/api:1\nPW=from-dotenv\nPG=postgres:15\n' },
    );
    process.env.PW = 'from-shell';
    try {
      const r = readCompose(file, 'api', 'WEB_CONCURRENCY');
      expect(r.ok && r.app).toMatchObject({
        source: { kind: 'image', image: 'team/api:1', workersEnv: 'WEB_CONCURRENCY' },
        port: 8080,
        dependencies: [{ name: 'db', image: 'postgres:15', env: { POSTGRES_PASSWORD: 'from-shell' } }],
      });
    } finally {
      delete process.env.PW;
    }
  });

  it('follows depends_on through the dependencies (api → worker-db → its cache), each once', () => {
    const file = composeFile(
      'services:\n  api:\n    image: a\n    ports: ["3000"]\n    depends_on: [db, cache]\n' +
        '  db:\n    image: postgres:16\n    depends_on: [cache]\n  cache:\n    image: redis:7\n',
    );
    const r = readCompose(file, 'api');
    expect(r.ok && r.app.dependencies!.map((d) => d.name)).toEqual(['db', 'cache']);
  });
});

describe('what a cell keeps fresh', () => {
  it('an anonymous volume and a bound data folder are not kept; an init folder is mounted', () => {
    const file = composeFile(
      'services:\n  api:\n    image: a\n    expose: ["1"]\n    depends_on:\n      db: {condition: service_healthy}\n' +
        '  db:\n    image: postgres:16\n    volumes: [/var/lib/postgresql/data, ./pgdata:/var/lib/postgresql/data, ./initdb:/docker-entrypoint-initdb.d]\n',
    );
    const r = readCompose(file, 'api');
    expect(r.ok && r.app.dependencies!.map((d) => d.name)).toEqual(['db']);
    expect(r.ok && r.app.dependencies![0]!.mounts).toEqual([{ source: path.join(path.dirname(file), 'initdb'), target: '/docker-entrypoint-initdb.d' }]);
    expect(r.ok && r.notes).toEqual(expect.arrayContaining([
      'services.db.volumes: /var/lib/postgresql/data is not kept: every cell starts db from fresh data',
      'services.db.volumes: ./pgdata is not kept: every cell starts db from fresh data',
    ]));
  });

  it('a job that runs to completion is refused by its condition, with what to do instead', () => {
    const file = composeFile(
      'services:\n  api:\n    image: a\n    expose: ["1"]\n    depends_on:\n      migrate: {condition: service_completed_successfully}\n  migrate:\n    image: flyway\n',
    );
    expect(problems(readCompose(file, 'api'))).toEqual([expect.stringMatching(/^services\.api\.depends_on\.migrate\.condition: a job that runs to completion/)]);
  });
});

describe('refused, naming the key; nothing to save', () => {
  it('a key the Compose specification does not have', () => {
    const file = composeFile('services:\n  api:\n    image: a\n    prots: ["3000"]\n');
    expect(problems(readCompose(file, 'api'))).toEqual([expect.stringMatching(/services\.api: .*\(prots\)/)]);
  });

  it('a service that is not in the file, with the ones that are', () => {
    expect(problems(readCompose(FIXTURE, 'web'))).toEqual(['docker-compose.yml has no service "web"; its services: api, db, cache']);
  });

  it('a file that does not exist, and one that is not YAML', () => {
    expect(problems(readCompose('/nowhere/compose.yml', 'api'))).toEqual(['there is no file /nowhere/compose.yml']);
    expect(problems(readCompose(composeFile('services: [\n'), 'api'))[0]).toMatch(/not a Compose file Rightsize can read/);
  });

  it("what a cell's world cannot honour: host networking, a built or replicated dependency, an entrypoint", () => {
    const file = composeFile(
      'services:\n  api:\n    image: a\n    network_mode: host\n    expose: ["3000"]\n    depends_on: [db, q]\n' +
        '  db:\n    build: ./db\n    deploy:\n      replicas: 2\n  q:\n    image: rabbitmq:3\n    entrypoint: ["x"]\n',
    );
    expect(problems(readCompose(file, 'api')).sort()).toEqual([
      "services.api.network_mode: the app runs on the run's own network; remove it",
      'services.db.build: a dependency runs an image: build it and name it with image:',
      'services.db.deploy.replicas: a dependency runs as one container',
      'services.db.healthcheck: say how to know it is ready: a healthcheck, or the port it listens on (expose:)',
      'services.q.entrypoint: not supported for a dependency: put it in the image',
      'services.q.healthcheck: say how to know it is ready: a healthcheck, or the port it listens on (expose:)',
    ]);
  });

  it('a cycle, a missing port, a required variable, a command that is a shell line', () => {
    const cycle = composeFile('services:\n  api:\n    image: a\n    expose: ["1"]\n    depends_on: [db]\n  db:\n    image: postgres\n    depends_on: [api]\n');
    expect(problems(readCompose(cycle, 'api'))).toContain('services.db.depends_on: a cycle: api → db → api');
    expect(problems(readCompose(composeFile('services:\n  api:\n    image: a\n'), 'api'))).toEqual([
      'services.api.ports: say the port the app listens on (ports: or expose:)',
    ]);
    expect(problems(readCompose(composeFile('services:\n  api:\n    image: ${IMG:?give the image}\n'), 'api'))[0]).toMatch(/IMG is required: give the image/);
    const shell = composeFile('services:\n  api:\n    build: .\n    expose: ["1"]\n    command: node server.js && echo done\n');
    expect(problems(readCompose(shell, 'api'))[0]).toMatch(/services\.api\.command: .* is a shell line/);
    const npm = composeFile('services:\n  api:\n    build: .\n    expose: ["1"]\n    command: npm start\n');
    expect(problems(readCompose(npm, 'api'))[0]).toMatch(/write it as "node <entry> \[args\]" \(got npm start\)/);
  });
});

describe('the value syntaxes', () => {
  it('interpolation, durations, sizes, commands', () => {
    const missing = new Set<string>();
    expect(interpolate('$$HOME ${A:-x} ${B-y} ${C} $A', { A: '', C: 'c' }, missing)).toBe('$HOME x y c ');
    expect(interpolate('${NOPE}', {}, missing)).toBe('');
    expect([...missing]).toEqual(['NOPE']);
    expect(['1m30s', '500ms', '10s', '2h'].map(durationMs)).toEqual([90_000, 500, 10_000, 7_200_000]);
    expect(durationMs('soon')).toBeUndefined();
    expect(['512m', '1g', '1.5G', '268435456', '64MB'].map(sizeMb)).toEqual([512, 1024, 1536, 256, 64]);
    expect(sizeMb('lots')).toBeUndefined();
    expect(splitCommand(`node server.js --name "a b" 'c d'`)).toEqual(['node', 'server.js', '--name', 'a b', 'c d']);
  });
});

describe('where dependencies run', () => {
  const app = { name: 'shop', dependencies: [{ name: 'db' }, { name: 'cache' }] } as never;
  it('a target that cannot start them refuses the run before it starts, naming the app and its dependencies', () => {
    expect(() => checkDependenciesHosted({ name: 'cluster-a' }, [app])).toThrow(
      'The target "cluster-a" cannot start an app\'s dependencies (a Docker engine, a Swarm and Kubernetes can): shop needs db, cache. Nothing was started.',
    );
    expect(() => checkDependenciesHosted({ name: 'local', hostsDependencies: true }, [app])).not.toThrow();
  });
  it("a pool size is a connection pool's, not libuv's thread pool nor a pool's idle time", async () => {
    const { poolConnections } = await import('../../src-main/common/connections.ts');
    const at = (env: Record<string, string>) => poolConnections({ env, mode: 'cluster', workers: 4 })?.total ?? null;
    expect([at({ PG_POOL_SIZE: '10' }), at({ DB_POOL_MAX: '5' }), at({ POOL: '3' })]).toEqual([40, 20, 12]);
    expect([at({ UV_THREADPOOL_SIZE: '8' }), at({ PG_POOL_IDLE_MS: '10000' }), at({ PG_POOL_SIZE: 'ten' })]).toEqual([null, null, null]);
  });
  it("the CLI's words for a dependency's field", () => {
    expect(optionOf('dependencies.0.image')).toBe('dependency 1 (image)');
  });
});
