// The server you actually run: an API that reads and writes a real PostgreSQL and counts in a real
// Redis, declared by its team's own Compose file, sized with its dependencies started fresh beside it
// for every cell. Images: the official ones where a registry answers; here, Rightsize's offline ones
// (built from Debian's packages, once per machine).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AppDefinition } from '../../src-main/apps/catalog.ts';
import { DependenciesSchema } from '../../src-main/apps/dependencies.ts';
import type { UserApp } from '../../src-main/apps/user-apps.ts';
import { docker } from '../../src-main/docker/client.ts';
import { debianRootTool, ensureDependencyImage } from '../../src-main/docker/dependency-images.ts';
import { LABEL, ownFilters } from '../../src-main/docker/labels.ts';
import { localProvider } from '../../src-main/providers/local/provider.ts';
import type { ProvisionedTarget } from '../../src-main/providers/provider.ts';
import { WORLD_LABEL } from '../../src-main/providers/docker/world.ts';
import { currentSession } from '../../src-main/session/session.ts';
import { Store } from '../../src-main/store/index.ts';
import { cli, startCli, tempDir } from '../helpers/cli.ts';
import { shopFolder } from '../helpers/compose-shop.ts';
import { requireDocker } from '../helpers/docker.ts';
import { until } from '../helpers/wait.ts';

let images: { PG_IMAGE: string; REDIS_IMAGE: string };

/** This lane's containers and networks of one app, by the labels every part of a cell's world carries. */
async function worldOf(app: string, session?: string): Promise<string[]> {
  const label = [...ownFilters(), `${LABEL.app}=${app}`, ...(session ? [`${LABEL.session}=${session}`] : [])];
  const filters = JSON.stringify({ label });
  const [cs, ns] = await Promise.all([
    docker().listContainers({ all: true, filters }),
    docker().listNetworks({ filters }),
  ]);
  return [...cs.map((c) => `container ${c.Labels[WORLD_LABEL.dependency] ?? 'app'}`), ...ns.map((n) => `network ${n.Name}`)];
}

beforeAll(async () => {
  await requireDocker();
  // Both at once: they share one Debian root, and their package downloads overlap.
  const log: string[] = [];
  const onLog = (line: string): void => void log.push(line);
  const [PG_IMAGE, REDIS_IMAGE] = await Promise.all([ensureDependencyImage('postgres', onLog), ensureDependencyImage('redis', onLog)]);
  images = { PG_IMAGE, REDIS_IMAGE };
  // Where the root was made now (not already on this engine), the tool this machine prefers made it: mmdebstrap on CI.
  const made = log.find((l) => / --variant=minbase /.test(l));
  if (made) expect(made.split(' ')[0]).toBe(debianRootTool());
}, 600_000);

describe('an app with a database and a cache, from its Compose file', () => {
  let db: string;
  let runId: number;
  const app = 'shop-db';

  it('is added from the Compose file: the service, its port and health path, and its two dependencies', async () => {
    const dir = shopFolder();
    db = path.join(tempDir(), 'h.db');
    const add = await cli(
      ['--db', db, 'apps', 'add', app, '--compose', path.join(dir, 'docker-compose.yml'), '--service', 'api', '--no-try',
        '--request', 'GET /products/7', '--request', 'POST /orders 201'],
      images,
    );
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toMatch(/services\.db\.volumes: pgdata is not kept: every cell starts db from fresh data/);
    const store = Store.open(db);
    try {
      const saved = store.getUserApp(app)!.definition as UserApp;
      expect(saved).toMatchObject({ port: 3000, health: '/healthz', source: { kind: 'folder', entry: 'server.js' } });
      expect(saved.dependencies.map((d) => `${d.name} ${d.image} ${d.cpuMillis}m ${d.memoryMb}MB`)).toEqual([
        `db ${images.PG_IMAGE} 1000m 256MB`,
        `cache ${images.REDIS_IMAGE} 1000m 512MB`,
      ]);
      expect(saved.dependencies[0]!.mounts).toEqual([
        { source: path.join(dir, 'db/init.sql'), target: '/docker-entrypoint-initdb.d/init.sql' },
      ]);
    } finally {
      store.close();
    }
  }, 60_000);

  it('runs a matrix over two pool sizes: every cell ok, each dependency measured beside the app, nothing left behind', async () => {
    const config = path.join(tempDir(), 'matrix.json');
    writeFileSync(config, JSON.stringify({
      apps: [app], modes: ['cluster'], workers: [2], cpuMillicores: [1000], memoryMb: [256], envMatrix: { PG_POOL_SIZE: ['2', '8'] },
      durationSec: 3, warmupSec: 0, load: { model: 'closed', connections: [8] }, settleBudgetPct: 0, verify: false,
    }));
    const r = await cli(['--db', db, '--json', 'run', '--config', config]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { runId: number; cells: { status: string; rpsMean: number; errors: number; non2xx: number }[] };
    runId = out.runId;
    expect(out.cells.map((c) => c.status)).toEqual(['ok', 'ok']);
    for (const c of out.cells) {
      expect(c.rpsMean).toBeGreaterThan(50);
      expect(c.errors + c.non2xx).toBe(0); // every product found, every order written
    }
    const store = Store.open(db);
    try {
      for (const cell of store.getRun(runId)!.cells) {
        expect(cell.load?.statusCounts).toMatchObject({ '200': expect.any(Number), '201': expect.any(Number) });
        const deps = cell.dependencies ?? [];
        console.log(`cell ${cell.config.mode}: ${cell.load?.measuredSec} s measured; flags ${cell.flags.map((f) => f.kind).join(',') || 'none'}; ` +
          deps.map((d) => `${d.name} ${d.seconds.map((x) => `${x.t}s ${x.cpuPct.toFixed(0)}%`).join(' ')} (mean ${d.stats?.cpuPctMean.toFixed(1)} % of ${d.cpuMillis}m)`).join('; '));
        expect(deps.map((d) => d.name)).toEqual(['db', 'cache']);
        // PostgreSQL did real work under its own 1-CPU cap, second by second.
        expect(deps[0]!.stats!.cpuPctMean).toBeGreaterThan(1);
        expect(deps[0]!.stats!.memMaxBytes).toBeGreaterThan(5 * 2 ** 20);
        expect(deps[0]!.seconds.length).toBeGreaterThanOrEqual(1); // Docker's stream sends its first second late
        expect(deps[1]!.stats!.cpuPctMean).toBeGreaterThan(0);
      }
    } finally {
      store.close();
    }
    expect(await worldOf(app)).toEqual([]);
    // Each second of the samples CSV has the database's and the cache's CPU and memory beside the app's.
    const csv = path.join(tempDir(), 'samples.csv');
    expect((await cli(['--db', db, 'export', String(runId), '--csv', path.join(tempDir(), 'cells.csv'), '--samples', csv])).code).toBe(0);
    const [head, ...lines] = readFileSync(csv, 'utf8').trim().split(/\r?\n/); // RFC 4180: CRLF
    const cols = head!.split(',');
    // The dependencies' columns, then each of the app's two routes (its requests go in turn: two routes counted).
    const deps = cols.indexOf('db_cpu_pct_of_cap');
    expect(cols.slice(deps, deps + 4)).toEqual(['db_cpu_pct_of_cap', 'db_mem_bytes', 'cache_cpu_pct_of_cap', 'cache_mem_bytes']);
    expect(cols.slice(deps + 4).filter((c) => c.endsWith(' latency_p99_us'))).toEqual(['GET /products/7 latency_p99_us', 'POST /orders latency_p99_us']);
    const dbCpu = lines.map((l) => Number(l.split(',')[cols.indexOf('db_cpu_pct_of_cap')]));
    expect(dbCpu.filter((x) => x > 1).length).toBeGreaterThanOrEqual(lines.length / 2); // PostgreSQL busy most seconds
    // The pool size is part of each configuration, and the deployed one's travels into its snippet.
    const answer = JSON.parse((await cli(['--db', db, '--json', 'report', String(runId)])).stdout) as { configurations: { label: string }[] };
    expect(answer.configurations.map((c) => c.label).sort()).toEqual([
      'shop-db cluster×2 1000m/256MB c8 PG_POOL_SIZE=2',
      'shop-db cluster×2 1000m/256MB c8 PG_POOL_SIZE=8',
    ]);
    const compose = (await cli(['--db', db, 'report', String(runId), '--emit', 'compose'])).stdout;
    expect(compose).toMatch(/PG_POOL_SIZE: "(2|8)"/);
    expect(compose).toMatch(/# Connections: up to 2 processes × PG_POOL_SIZE (2|8) = (4|16) database connections/);
  }, 240_000);

  it('starts every cell from the same data: a cell\'s writes never reach the next', async () => {
    const store = Store.open(db);
    let definition: AppDefinition;
    let image: string;
    try {
      const run = store.getRun(runId)!;
      definition = (run.apps as AppDefinition[]).find((a) => a.name === app)!;
      image = run.cells[0]!.imageTag!;
    } finally {
      store.close();
    }
    const provider = localProvider();
    const counts: number[] = [];
    for (const round of [1, 2]) {
      const target: ProvisionedTarget = await provider.provision({
        image,
        launch: { mode: 'single', workers: 1, entry: definition.entry, name: app, args: [] },
        port: definition.port,
        health: definition.health,
        env: definition.env,
        cpuMillis: 1000,
        memoryMb: 256,
        dependencies: definition.dependencies!,
        labels: { run: '', cell: '', app, session: currentSession() },
      });
      try {
        await target.waitReady({ workers: 1, deadlineMs: 30_000 });
        const base = `http://${target.address.host}:${target.address.port}`;
        const count = async (): Promise<number> => ((await (await fetch(`${base}/orders/count`)).json()) as { orders: number }).orders;
        counts.push(await count());
        for (let i = 0; i < 200; i++) expect((await fetch(`${base}/orders`, { method: 'POST' })).status).toBe(201);
        counts.push(await count());
      } finally {
        await target.remove();
      }
      expect(await worldOf(app), `after round ${round}`).toEqual([]);
    }
    // Seeded with 3 orders by the init script; 200 written; the next world starts from the 3 again.
    expect(counts).toEqual([3, 203, 3, 203]);
  }, 180_000);

  it('a cancel while a dependency is still starting stops the wait at once and removes what was started', async () => {
    const ac = new AbortController();
    // A cache that never passes its check: without the cancel, the wait would last its 300 retries (120 s at most).
    const cache = DependenciesSchema.parse([{ name: 'cache', image: images.REDIS_IMAGE, healthcheck: { test: ['CMD', 'false'], retries: 300 }, port: 6379 }]);
    setTimeout(() => ac.abort(), 1000);
    const t0 = Date.now();
    await expect(localProvider().provision({
      image: 'unused-never-started', launch: { mode: 'single', workers: 1, entry: 'server.js', name: 'dep-cancel', args: [] }, port: 3000, env: {},
      cpuMillis: 500, memoryMb: 256, dependencies: cache, labels: { run: '', cell: '', app: 'dep-cancel', session: currentSession() }, signal: ac.signal,
    })).rejects.toThrow('a dependency was not ready: cancelled');
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(await worldOf('dep-cancel')).toEqual([]);
  }, 60_000);

  it('apps try names the dependency the app could not log in to, not its health path', async () => {
    const dir = shopFolder();
    const add = await cli(
      ['--db', db, 'apps', 'add', 'shop-badpw', '--compose', path.join(dir, 'docker-compose.yml'), '--service', 'api', '--no-try',
        '--env', 'DATABASE_URL=postgres://shop:wrong@db:5432/shop'],
      images,
    );
    expect(add.code, add.stderr).toBe(0);
    const r = await cli(['--db', db, '--json', 'apps', 'try', 'shop-badpw']);
    expect(r.code, r.stderr).toBe(5);
    const out = JSON.parse(r.stdout) as { ok: boolean; suggestions: { kind: string; text?: string }[] };
    expect(out.suggestions).toEqual([{
      kind: 'note',
      text: expect.stringMatching(/^the app could not use its dependency db \(.*postgres.*\): its log says ".*password authentication failed for user "shop"/),
    }]);
    expect(await worldOf('shop-badpw')).toEqual([]);
  }, 120_000);

  it('a SIGKILL during a cell leaves no container and no network once the reaper has run', async () => {
    const config = path.join(tempDir(), 'long.json');
    writeFileSync(config, JSON.stringify({
      apps: [app], modes: ['single'], workers: [1], cpuMillicores: [500], memoryMb: [256],
      durationSec: 60, warmupSec: 0, load: { model: 'closed', connections: [4] }, settleBudgetPct: 0, verify: false,
    }));
    const { child, done } = startCli(['--db', db, 'run', '--config', config]);
    const session = await until(async () => {
      const [c] = await docker().listContainers({ filters: JSON.stringify({ label: [...ownFilters(), `${LABEL.app}=${app}`, `${WORLD_LABEL.dependency}=db`] }) });
      return c?.Labels[LABEL.session];
    }, "the cell's database to start", 120_000);
    await until(async () => (await worldOf(app, session)).includes('container app') || undefined, 'the app to start', 60_000);
    expect((await worldOf(app, session)).sort()).toEqual(expect.arrayContaining(['container app', 'container cache', 'container db']));
    child.kill('SIGKILL');
    await done;
    const t0 = Date.now();
    await until(async () => ((await worldOf(app, session)).length === 0 ? true : undefined), 'the reaper to remove the world', 20_000);
    console.log(`a killed cell's app, database, cache and network removed ${Date.now() - t0} ms after SIGKILL`);
    expect(readFileSync(config, 'utf8')).toContain(app); // the config stays the user's
  }, 240_000);
});

describe('the built-in catalog app (PostgreSQL at max_connections 30): the connection cliff', () => {
  it('4 workers × a pool of 10 ask more connections than the database takes: failed requests; a pool of 2 serves, and is deployed', async () => {
    const db = path.join(tempDir(), 'catalog.db');
    const config = path.join(tempDir(), 'cliff.json');
    writeFileSync(config, JSON.stringify({
      apps: ['catalog'], modes: ['cluster'], workers: [4], cpuMillicores: [1000], memoryMb: [512],
      envMatrix: { PG_POOL_SIZE: ['2', '10'] }, durationSec: 3, warmupSec: 0, load: { model: 'closed', connections: [64] },
      settleBudgetPct: 0, verify: false,
    }));
    const r = await cli(['--db', db, '--json', 'run', '--config', config]);
    const out = JSON.parse(r.stdout) as { runId: number; cells: { config: { envSet: Record<string, string> }; status: string; errors: number; non2xx: number; requests: number }[] };
    const by = Object.fromEntries(out.cells.map((c) => [c.config.envSet.PG_POOL_SIZE, c]));
    console.log(`pool 2: ${by['2']!.non2xx} of ${by['2']!.requests} failed; pool 10: ${by['10']!.non2xx} of ${by['10']!.requests} failed`);
    expect(by['2']!.status).toBe('ok');
    expect(by['2']!.non2xx + by['2']!.errors).toBe(0); // 4 × 2 = 8 connections: the database takes them all
    expect(by['10']!.non2xx).toBeGreaterThan(0); // 4 × 10 = 40 asked of 30: "sorry, too many clients already"
    // The answer sets it aside with the connections it asked for and the database's own words, read from the bodies.
    const words = (JSON.parse((await cli(['--db', db, '--json', 'report', String(out.runId)])).stdout) as { words: string[] }).words.join(' ');
    expect(words).toMatch(/4 cluster workers \(PG_POOL_SIZE=10\) \([\d.]+ % of requests failed \(above 1 %\), at 4 processes × PG_POOL_SIZE 10 = 40 database connections against db's max_connections 30: 503 "sorry, too many clients already" \([\d,]+\)/);
    const compose = (await cli(['--db', db, 'report', String(out.runId), '--emit', 'compose'])).stdout;
    expect(compose).toContain('PG_POOL_SIZE: "2"');
    expect(compose).toContain("# Connections: up to 4 processes × PG_POOL_SIZE 2 = 8 database connections (check the database's max_connections).");
  }, 180_000);
});
