// A database held at a tenth of a CPU sets the pace of the API in front of it, and the answer says so.
// Quiet lane: the dependency's share of its cap against the app's is only read as the cause on a host
// with nothing else beside the cell (on a busy one the same cell is host-busy, rightly). The request is a read, so
// the database's CPU sets the pace and not its disk: a commit's flush left it under its cap in some seconds.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { ensureDependencyImage } from '../../src-main/docker/dependency-images.ts';
import { Store } from '../../src-main/store/index.ts';
import { cli, tempDir } from '../helpers/cli.ts';
import { shopFolder } from '../helpers/compose-shop.ts';
import { requireDocker } from '../helpers/docker.ts';

let images: { PG_IMAGE: string; REDIS_IMAGE: string };
let db: string;

beforeAll(async () => {
  await requireDocker();
  // Built by dependencies.test.ts in a shared lane before this runs (once per machine); alone, built here.
  images = { PG_IMAGE: await ensureDependencyImage('postgres'), REDIS_IMAGE: await ensureDependencyImage('redis') };
  db = path.join(tempDir(), 'h.db');
}, 600_000);

it('a database held at a tenth of a CPU is recognised as what set the pace: a lower bound, said so', async () => {
  const dir = shopFolder();
  const add = await cli(
    [
      '--db',
      db,
      'apps',
      'add',
      'shop-slowdb',
      '--compose',
      path.join(dir, 'docker-compose.yml'),
      '--service',
      'api',
      '--no-try',
      '--request',
      'GET /orders/count 200',
    ],
    { ...images, DB_CPUS: '0.1' },
  );
  expect(add.code, add.stderr).toBe(0);
  const config = path.join(tempDir(), 'slow.json');
  writeFileSync(
    config,
    JSON.stringify({
      apps: ['shop-slowdb'],
      modes: ['cluster'],
      workers: [2],
      cpuMillicores: [1000],
      memoryMb: [256],
      durationSec: 5,
      warmupSec: 0,
      load: { model: 'closed', connections: [16] },
      settleBudgetPct: 0,
      verify: false,
    }),
  );
  const r = await cli(['--db', db, '--json', 'run', '--config', config]);
  expect(r.code, r.stderr).toBe(0);
  const id = (JSON.parse(r.stdout) as { runId: number }).runId;
  const store = Store.open(db);
  try {
    const [cell] = store.getRun(id)!.cells;
    const dbReading = cell!.dependencies![0]!;
    const s = dbReading.stats;
    const why =
      `app ${cell!.stats?.cpuPctMean.toFixed(0)} %, db ${s?.cpuPctMean.toFixed(0)} % of ${dbReading.cpuMillis}m, ` +
      `throttled in ${s?.throttledPeriods} of ${s?.cpuPeriods} periods`;
    console.log(why);
    expect(
      cell!.flags.map((f) => f.kind),
      why,
    ).toContain('dependency-bound');
    expect(cell!.bottleneck).toBe('dependency');
    expect(cell!.flags.find((f) => f.kind === 'dependency-bound')!.reason).toMatch(
      /^db \(.*\) used \d+ % of its 0\.1 CPU cap( \(out of it in \d+ % of its busy periods\))? while the app used \d+ % of its own: db set the pace$/,
    );
  } finally {
    store.close();
  }
  const report = await cli(['--db', db, 'report', String(id)]);
  // Said where the numbers are, and as the line of cause: the database, not the libuv pool or the host.
  expect(report.stdout).toMatch(
    /≥ [\d,]+ req\/s \(a lower bound: a dependency \(its database or cache\) set the pace\)/,
  );
  expect(report.stdout).toMatch(
    /Why: shop-slowdb: a lower bound: in 1 of its 1 repetitions db \(.*\) used \d+ % of its 0\.1 CPU cap/,
  );
  expect(report.stdout).not.toMatch(/host set the pace|libuv pool/);
}, 120_000);
