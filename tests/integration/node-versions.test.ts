// Node.js versions and flags through the real engine on this machine's Docker: a base image per
// version built from the npm registry's node-linux-<arch> package, the app built on each, every
// cell's exact version recorded (and the one its container really runs), and the cell's flags in
// every process of a cluster ×2 and a PM2 ×2 cell — NODE_OPTIONS for what Node accepts there, the
// command line (inherited by cluster workers, PM2's --node-args) for what it refuses.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveApps } from '../../src-main/apps/library.ts';
import { docker } from '../../src-main/docker/client.ts';
import { findImage } from '../../src-main/docker/image-lookup.ts';
import { LABEL } from '../../src-main/docker/labels.ts';
import { ensureNodeBase, NODE_VERSION_LABEL } from '../../src-main/docker/node-base.ts';
import { expandMatrix, validateMatrix } from '../../src-main/engine/matrix.ts';
import { imageNeeds } from '../../src-main/engine/run/images.ts';
import { runSession, type CellSource } from '../../src-main/engine/run/run-session.ts';
import type { RunEvent } from '../../src-main/model/events.ts';
import type { CellConfig } from '../../src-main/model/types.ts';
import { Store } from '../../src-main/store/index.ts';
import { tempDir } from '../helpers/cli.ts';
import { twoCellMatrix, withBaseImageAndReaper } from '../helpers/docker.ts';

withBaseImageAndReaper();

let store: Store;
beforeAll(() => {
  store = Store.open(path.join(tempDir(), 'h.db'));
});
afterAll(() => store?.close());

/**
 * Accepted in NODE_OPTIONS; and refused there, so it goes on the command line. PM2 rewrites its
 * instances' process titles (their /proc cmdline), so --trace-gc shows the flag another way: every
 * process that has it prints "[PID:0x…] … Scavenge" lines, with its own pid, to the container's log.
 */
const ENV_FLAG = '--max-old-space-size=200';
const ARGV_FLAG = '--trace-gc';

interface Proc {
  pid: number;
  cmdline: string[];
  nodeOptions: string;
}

/** Every node process of the container, and the version its binary is, asked from inside it. */
async function processesOf(containerId: string): Promise<{ procs: Proc[]; version: string; traced: Set<number> }> {
  const script = `
    const fs = require('fs');
    const procs = [];
    for (const d of fs.readdirSync('/proc')) {
      if (!/^\\d+$/.test(d) || Number(d) === process.pid) continue;
      try {
        const cmdline = fs.readFileSync('/proc/' + d + '/cmdline', 'utf8').split('\\0').filter(Boolean);
        const env = fs.readFileSync('/proc/' + d + '/environ', 'utf8').split('\\0');
        const no = env.find((e) => e.startsWith('NODE_OPTIONS='));
        procs.push({ pid: Number(d), cmdline, nodeOptions: no ? no.slice(13) : '' });
      } catch {}
    }
    console.log(JSON.stringify({ procs, version: process.versions.node }));`;
  const exec = await docker()
    .getContainer(containerId)
    .exec({ Cmd: ['node', '-e', script], Env: ['NODE_OPTIONS='], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({});
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  // Docker's multiplexed stream: 8-byte frame headers before each chunk of output.
  const all = Buffer.concat(chunks);
  let out = '';
  for (let i = 0; i + 8 <= all.length;) {
    const len = all.readUInt32BE(i + 4);
    if (all[i] === 1) out += all.subarray(i + 8, i + 8 + len).toString('utf8');
    i += 8 + len;
  }
  const logs = (await docker().getContainer(containerId).logs({ stdout: true, stderr: true })).toString('utf8');
  const traced = new Set([...logs.matchAll(/\[(\d+):0x[0-9a-f]+\]\s+\d+ ms: /g)].map((m) => Number(m[1])));
  return { ...(JSON.parse(out.trim().split('\n').pop()!) as { procs: Proc[]; version: string }), traced };
}

/** The running container of a run, read on the cell's first measured second (it is removed once the cell ends). */
function watchContainers(): {
  onEvent: (e: RunEvent) => void;
  of: (cellId: number) => Promise<Awaited<ReturnType<typeof processesOf>>>;
} {
  const seen = new Map<number, Promise<Awaited<ReturnType<typeof processesOf>>>>();
  return {
    onEvent: (e) => {
      if (e.type !== 'sample' || seen.has(e.cellId)) return;
      const read = (async () => {
        const filters = JSON.stringify({ label: [`${LABEL.run}=${e.runId}`], status: ['running'] });
        const running = await docker().listContainers({ filters });
        if (running.length !== 1) throw new Error(`cell ${e.cellId}: ${running.length} running containers`);
        return processesOf(running[0]!.Id);
      })();
      read.catch(() => undefined);
      seen.set(e.cellId, read);
    },
    of: (cellId) => seen.get(cellId) ?? Promise.reject(new Error(`cell ${cellId} stored no second`)),
  };
}

/** The cells of a small matrix of json, each given its Node.js version and flags. */
function source(over: Record<string, unknown>, each: (c: CellConfig, i: number) => Partial<CellConfig>): CellSource {
  return {
    plan: async (limits, lib) => {
      const v = validateMatrix(twoCellMatrix({ apps: ['json'], ...over }), limits);
      if (!v.ok) throw new Error(JSON.stringify(v.problems));
      const resolved = await resolveApps(lib, v.matrix.apps, (image) => findImage(image));
      if (!resolved.ok) throw new Error(JSON.stringify(resolved.problems));
      const cells = expandMatrix(v.matrix, limits.imageApps).map((c, i) => ({ ...c, ...each(c, i) }));
      return {
        what: 'node versions test',
        apps: resolved.apps,
        record: { create: { name: 'node versions', matrix: v.matrix, cellsTotal: cells.length, apps: resolved.apps } },
        cellDefaults: { placement: v.matrix.placement === 'auto', timeoutSec: v.matrix.timeoutSec },
        images: imageNeeds(cells),
        run: async (s) => {
          for (const cell of cells) await s.runCell(cell, { total: cells.length, etaSec: () => 0 });
        },
      };
    },
  };
}

describe('Node.js versions and flags as a dimension (real engine)', () => {
  it('builds a base per version from the registry, records each cell’s exact version, and the flags reach every process', async () => {
    const watch = watchContainers();
    let firstCell = 0;
    const onEvent = (e: RunEvent): void => {
      if (e.type === 'cell-started' && !firstCell) firstCell = Date.now();
      watch.onEvent(e);
    };
    const t0 = Date.now();
    const flags = [ENV_FLAG, ARGV_FLAG];
    const outcome = await runSession(
      source({ modes: ['single', 'cluster', 'pm2'], workers: [2], cpuMillicores: [1000], memoryMb: [256] }, (c) =>
        c.mode === 'single' ? { node: '20' } : { node: '22', nodeFlags: flags },
      ),
      { store, onEvent },
    );
    const imagesSec = ((firstCell || Date.now()) - t0) / 1000;
    console.log(
      `node versions: lab + images (two Node.js versions, first build here or cached) ${imagesSec.toFixed(1)} s`,
    );
    expect(outcome.error).toBeUndefined();
    const cells = store.getRun(outcome.runId)!.cells;
    expect(
      cells.map((c) => [c.config.mode, c.config.node, c.status]),
      cells.map((c) => c.failure ?? '').join(' | '),
    ).toEqual([
      ['single', '20', 'ok'],
      ['cluster', '22', 'ok'],
      ['pm2', '22', 'ok'],
    ]);
    const [v20, v22a, v22b] = cells.map((c) => c.nodeVersion);
    expect(v20).toMatch(/^20\.\d+\.\d+$/);
    expect(v22a).toMatch(/^22\.\d+\.\d+$/);
    expect(v22b).toBe(v22a);

    for (const c of cells) {
      const { procs, version, traced } = await watch.of(c.id);
      expect(version, `cell ${c.config.index}: the version its container runs is the one recorded`).toBe(c.nodeVersion);
      const nodes = procs.filter((p) => /^(\S*\/)?node(\s|$)/.test(p.cmdline[0] ?? ''));
      if (c.config.mode === 'single') {
        expect(nodes.map((p) => [p.cmdline.includes(ARGV_FLAG), traced.has(p.pid)])).toEqual([[false, false]]); // none asked
        continue;
      }
      // The primary (or PM2's own process) and both workers.
      expect(nodes.length, `${c.config.mode}: ${JSON.stringify(procs)}`).toBe(3);
      for (const p of nodes) {
        const what = `${c.config.mode} pid ${p.pid} ${JSON.stringify(p.cmdline)}`;
        expect(p.nodeOptions.split(' '), what).toContain(ENV_FLAG);
        expect(p.cmdline, `${what}: NODE_OPTIONS' flag not repeated`).not.toContain(ENV_FLAG);
        // The first process shows it on its command line; each worker, serving the load, collects garbage and says so.
        if (p.pid === 1) expect(p.cmdline, what).toContain(ARGV_FLAG);
        else expect(traced.has(p.pid), `${what}: GC trace lines from pids ${[...traced].join(',')}`).toBe(true);
      }
    }

    // Labelled with the exact version; a second time everything is cached (no download, no build).
    const t1 = Date.now();
    const again = await ensureNodeBase('22');
    console.log(`node versions: the Node.js 22 base again (cached) ${((Date.now() - t1) / 1000).toFixed(2)} s`);
    expect(again.nodeVersion).toBe(v22a);
    if (again.strategy === 'offline') {
      const labels = (await docker().getImage(again.tag).inspect()).Config?.Labels ?? {};
      expect(labels[NODE_VERSION_LABEL]).toBe(v22a);
    }
  }, 600_000);

  it('refuses an unknown version before any cell runs, naming what the registry has', async () => {
    const outcome = await runSession(
      source({ modes: ['single'], workers: [1] }, () => ({ node: '19.99' })),
      { store },
    );
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(
      /^Node\.js 19\.99 is not on the registry https?:\/\/\S+: versions of 19 are 19\.0\.0 … 19\.\d+\.\d+$/,
    );
    expect(store.getRun(outcome.runId)!.cells).toEqual([]);
  }, 120_000);
});
