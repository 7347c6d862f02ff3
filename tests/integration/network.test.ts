// The network as a resource (issue 44), on the real engine: a cell's bandwidth cap is Linux traffic control in its
// container's network namespace, set by a helper that is gone afterwards; the bytes the load side counts stay at the
// cap; 1 MiB responses under a small cap are attributed to the network at every worker count, and said so. A cap is
// an upper bound the kernel enforces; on a busy host a second the sender waited for the CPU falls short of it (the
// bucket's unused tokens are lost), so the link's pace is read from the median second: this file shares a lane.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { NETWORK_BOUND_SHARE } from '../../src-main/common/thresholds.ts';
import { docker } from '../../src-main/docker/client.ts';
import { LABEL, ownFilters } from '../../src-main/docker/labels.ts';
import { Store } from '../../src-main/store/index.ts';
import { cli, runConfig, tempDir } from '../helpers/cli.ts';
import { requireDocker } from '../helpers/docker.ts';

const CAP_MBPS = 200;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

beforeAll(async () => {
  await requireDocker();
});

describe('a bandwidth cap per cell', () => {
  it(`1 MiB responses through ${CAP_MBPS} Mbit/s: bytes at the cap every second, network-bound at every worker count, said so, nothing left`, async () => {
    const { dir, db, runId } = await runConfig({
      apps: ['static'], modes: ['cluster'], workers: [1, 2], cpuMillicores: [1000], memoryMb: [256], networkMbps: [CAP_MBPS],
      requestSets: [{ name: '1m', requests: [{ method: 'GET', path: '/1m' }] }],
      load: { model: 'closed', connections: [8] }, durationSec: 5, warmupSec: 1, settleBudgetPct: 0, verify: false,
    });
    const store = Store.open(db);
    try {
      const run = store.getRun(runId)!;
      const samples = store.getRunSamples(runId);
      expect(run.cells).toHaveLength(2);
      for (const c of run.cells) {
        expect(c.status, c.failure ?? '').toBe('ok');
        expect(c.config.load.networkMbps).toBe(CAP_MBPS);
        const perSecond = samples.get(c.id)!.map((s) => (s.bytes * 8) / 1e6 / CAP_MBPS);
        const share = (c.bytesPerSec! * 8) / 1e6 / CAP_MBPS;
        console.log(`${c.config.workers} worker(s): ${c.rpsMean!.toFixed(1)} req/s, ${(share * 100).toFixed(1)} % of the cap; per second ${perSecond.map((x) => x.toFixed(2)).join(' ')}`);
        // The kernel's bucket: never above the cap (its 10 ms burst aside), and a server that can send more fills it in
        // the median second (whole 1 MiB responses land in whole seconds: one is 4 % of a second's 25 MB here).
        expect(share).toBeLessThanOrEqual(1.05);
        expect(median(perSecond)).toBeGreaterThanOrEqual(NETWORK_BOUND_SHARE);
        expect(median(perSecond)).toBeLessThan(1.1);
        expect(c.load!.perSecondBytes).toEqual(samples.get(c.id)!.map((s) => s.bytes));
        expect(c.flags.map((f) => f.kind)).toContain('network-bound');
        expect(c.bottleneck).toBe('network');
      }
    } finally {
      store.close();
    }
    const report = await cli(['--db', db, 'report', String(runId)]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/What would decide it: more bandwidth, or smaller responses/);
    const explain = await cli(['--db', db, 'report', String(runId), '--explain']);
    expect(explain.stdout).toMatch(/the network, not the server, set the ceiling, so this is not a CPU question/);
    expect(report.stdout).toMatch(new RegExp(`static \\[1m\\]: [\\d.–]+ req/s at every worker count here, \\d+ % of the ${CAP_MBPS} Mbit/s cap: network-bound, not a CPU question`));
    const csv = path.join(dir, 'cells.csv');
    expect((await cli(['--db', db, 'export', String(runId), '--csv', csv])).code).toBe(0);
    const [head, row] = readFileSync(csv, 'utf8').split('\n');
    const col = (name: string): string => row!.split(',')[head!.split(',').indexOf(name)]!;
    expect(col('network_mbps')).toBe(String(CAP_MBPS));
    // The helpers that set the caps are gone with the cells.
    const tools = await docker().listContainers({ all: true, filters: JSON.stringify({ label: [...ownFilters(), `${LABEL.kind}=tool`] }) });
    expect(tools).toEqual([]);
  }, 120_000);

  it('HTTPS and HTTP/2 beside plain HTTP/1.1: the built-in app serves the run\'s certificate and HTTP version, every response measured over it', async () => {
    const { dir, db, runId } = await runConfig({
      apps: ['json'], modes: ['cluster'], workers: [1], cpuMillicores: [500], memoryMb: [256], tls: [false, true], protocol: ['http1', 'h2', 'h2c'],
      load: { model: 'closed', connections: [8] }, durationSec: 3, warmupSec: 0, settleBudgetPct: 0, verify: false,
    });
    const store = Store.open(db);
    try {
      const cells = store.getRun(runId)!.cells;
      const link = (c: (typeof cells)[number]): string => `${c.config.load.protocol ?? 'http1'}${c.config.load.tls ? '+tls' : ''}`;
      expect(cells.map((c) => [link(c), c.status])).toEqual([['http1', 'ok'], ['http1+tls', 'ok'], ['h2+tls', 'ok'], ['h2c', 'ok']]);
      for (const c of cells) {
        // A load of another protocol than the server's (plain against TLS, HTTP/1.1 against h2c) fails every request:
        // these all succeeded.
        expect(c.errors! + c.timeouts! + c.non2xx!, link(c)).toBe(0);
        expect(c.rpsMean!).toBeGreaterThan(100);
        // No warm-up: the 8 keep-alive connections open (over TLS, a full handshake each) in the first measured second.
        const opened = store.getRunSamples(runId).get(c.id)!.map((s) => s.opened ?? 0);
        expect(opened.reduce((a, b) => a + b, 0), opened.join(' ')).toBe(8);
        console.log(`${link(c)}: ${c.rpsMean!.toFixed(0)} req/s, ${(c.cpuPctMean! * 5 / c.rpsMean!).toFixed(3)} ms CPU a request`);
      }
    } finally {
      store.close();
    }
    const csv = path.join(dir, 'cells.csv');
    expect((await cli(['--db', db, 'export', String(runId), '--csv', csv])).code).toBe(0);
    const [head, ...rows] = readFileSync(csv, 'utf8').trim().split('\n');
    const col = (name: string): string[] => rows.map((row) => row.split(',')[head!.split(',').indexOf(name)]!);
    expect(col('tls')).toEqual(['', '1', '1', '']);
    expect(col('protocol')).toEqual(['http1', 'http1', 'h2', 'h2c']);
    const show = await cli(['--db', db, 'show', String(runId)]);
    expect(show.stdout).toMatch(/· TLS/);
    expect(show.stdout).toMatch(/· h2\b/);
    expect(show.stdout).toMatch(/· h2c\b/);
    // What TLS costs, by the answer's own contest (one repetition each: batch means of its seconds).
    const explain = await cli(['--db', db, 'report', String(runId), '--explain']);
    expect(explain.stdout).toMatch(/HTTPS, for 1 cluster worker on 0\.5 CPU \/ 256 MB \(json\): (plain HTTP|HTTPS) /);
    // What HTTP/2 changes for the same encryption: h2 against HTTP/1.1 over TLS, h2c against plain HTTP/1.1.
    expect(explain.stdout).toMatch(/HTTP\/2, for 1 cluster worker on 0\.5 CPU \/ 256 MB \(json\): (HTTP\/2 \(h2\)|HTTP\/1\.1 over TLS) /);
    expect(explain.stdout).toMatch(/HTTP\/2, for 1 cluster worker on 0\.5 CPU \/ 256 MB \(json\): (HTTP\/2 \(h2c\)|HTTP\/1\.1) /);
  }, 120_000);

  it('a cap it cannot set is refused before anything starts, in words', async () => {
    const dir = tempDir();
    const config = path.join(dir, 'matrix.json');
    writeFileSync(config, JSON.stringify({ apps: ['static'], modes: ['single'], workers: [1], cpuMillicores: [500], memoryMb: [128], networkMbps: [0, 100, 100] }));
    const r = await cli(['--db', path.join(dir, 'h.db'), 'run', '--config', config]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/networkMbps: 0 is not a bandwidth cap: a whole number of Mbit\/s from 1 to 100000/);
    expect(r.stderr).toMatch(/networkMbps: each cap only once/);
  }, 60_000);
});
