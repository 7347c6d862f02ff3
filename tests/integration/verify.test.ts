// Verification of the deployable on the real engine, through the real CLI:
// a run stored without verification (an "older" run), whose pick's fresh settings are too small —
// its cells' peak readings lowered to 20 MB and its per-process readings removed, as a warm machine's
// cgroup peak under-counts a fresh PM2 container — so the answer's rule gives 32 MB, and hello under
// PM2 at 32 MB is OOM-killed (the failure that motivated verification). `report --emit` says it is
// unverified and names `rightsize verify RUN`; `verify RUN` runs each snippet exactly as emitted,
// fails at 32 MB, steps up on a memory failure (never above the largest clean cap, 256 MB) and repeats
// any other failure once at the same limit, stores the cells with the run,
// and `report --emit` then carries exactly the settings of the cell that passed.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { TrapFinding } from '../../src-main/analysis/trap-types.ts';
import { heapFitMb } from '../../src-main/common/heap-fit.ts';
import { heapFlagOf } from '../../src-main/deploy/settings.ts';
import { judgeVerifyCell } from '../../src-main/deploy/verification.ts';
import { Store, type StoredCell } from '../../src-main/store/index.ts';
import { cli, tempDir, type CliResult } from '../helpers/cli.ts';
import { requireDocker } from '../helpers/docker.ts';

const rightsize = (args: string[]): Promise<CliResult> => cli(args);

// hello under PM2, one instance, 0.5 CPU, 256 MB: a 3 s cell, one repetition, no verification. (One
// cap: with two, the matrix's own cap comparison may call the smaller one unclean and raise the
// answer's limit to the larger, and nothing would be left to step up.)
const MATRIX = {
  apps: ['hello'], modes: ['pm2'], workers: [1], cpuMillicores: [500], memoryMb: [256],
  load: { model: 'closed', connections: [20] }, durationSec: 3, warmupSec: 0, repetitions: 1, order: 'fixed', verify: false,
};
const MIB = 2 ** 20;

let db = '';
let runId = 0;

beforeAll(async () => {
  await requireDocker();
  const dir = tempDir('rightsize-verify-');
  db = path.join(dir, 'history.db');
  const config = path.join(dir, 'matrix.json');
  writeFileSync(config, JSON.stringify(MATRIX));
  const r = await rightsize(['--db', db, '--json', 'run', '--config', config, '--wait']);
  expect(r.code, r.stderr).toBe(0);
  runId = (JSON.parse(r.stdout) as { runId: number }).runId;
  // Peaks as a warm machine's cgroup may read them, without per-process readings: the rule gives 32 MB.
  const conn = new Database(db);
  try {
    conn.prepare(`UPDATE cells SET mem_max_bytes = ?, stats_json = json_remove(json_set(stats_json, '$.memPeakBytes', ?, '$.memMaxBytes', ?), '$.processes', '$.rssTotalPeakBytes', '$.rssSharedOncePeakBytes', '$.pssTotalBytes') WHERE run_id = ?`)
      .run(20 * MIB, 20 * MIB, 20 * MIB, runId);
  } finally {
    conn.close();
  }
}, 150_000);

const verifyCells = (): StoredCell[] => {
  const s = Store.open(db);
  try {
    return s.getRun(runId)!.cells.filter((c) => c.config.phase === 'verify');
  } finally {
    s.close();
  }
};

describe('rightsize verify on a run stored without verification', () => {
  it('report --emit says unverified, names the command, and carries only the measured cap', async () => {
    const k8s = await rightsize(['--db', db, 'report', String(runId), '--emit', 'kubernetes']);
    expect(k8s.code, k8s.stderr).toBe(0);
    expect(k8s.stdout.split('\n')[1]).toMatch(new RegExp(`^# Unverified — run \`rightsize verify ${runId}\` to run it exactly as emitted`));
    expect(k8s.stdout).toContain("(the answer's memory rule gives limit 32 MB (peak × 1.25, rounded up to a multiple of 32 MB); measured under a 256 MB cap: a snippet carries it once verification has run it)");
    expect((parse(k8s.stdout) as { resources: { limits: { memory: string } } }).resources.limits.memory).toBe('256Mi');
    expect(k8s.stderr).toMatch(/Unverified: .* Verify it: .*verify \d+/);
    const pm2 = await rightsize(['--db', db, 'report', String(runId), '--emit', 'pm2']);
    expect(pm2.stdout).not.toMatch(/max_memory_restart: "|node_args: "/);
    expect(pm2.stdout).toContain('// No max_memory_restart or node_args: no cell has run them.');
    expect(verifyCells()).toEqual([]);
  });

  it('verify RUN fails at 32 MB, steps up no higher than 256 MB, and the snippets then carry exactly what passed', async () => {
    const started = Date.now();
    const v = await rightsize(['--db', db, 'verify', String(runId), '--wait']);
    const wallSec = (Date.now() - started) / 1000;
    expect([0, 8], `${v.stdout}\n${v.stderr}`).toContain(v.code);
    const cells = verifyCells();
    // What was measured, for the record (the report of this change quotes it).
    const rows = cells.map((c) => ({
      cell: c.config.index + 1, snippets: c.config.verify!.snippets.join('+'), attempt: c.config.verify!.attempt, mode: c.config.mode, memoryMb: c.config.memoryMb,
      restartMb: c.config.recycleRssMb ?? null, heapMb: heapFlagOf(c.config.env), status: c.status, oom: c.exit?.oomKilled ?? null, restarts: c.exit?.restarts ?? null,
      peakMb: c.stats?.memPeakBytes ? Math.round(c.stats.memPeakBytes / MIB) : null,
      rssMb: (c.stats as { processes?: { role: string; rssPeakBytes: number }[] } | null)?.processes?.map((p) => `${p.role} ${Math.round(p.rssPeakBytes / MIB)}`).join(', ') ?? null,
      goodput: c.load?.goodputMean ? Math.round(c.load.goodputMean) : null, p99ms: c.p99Us ? +(c.p99Us / 1000).toFixed(2) : null,
    }));
    console.log(`verify took ${wallSec.toFixed(0)} s:\n${rows.map((r) => JSON.stringify(r)).join('\n')}\n${v.stdout}`);

    // Two groups: PM2 (pm2 with a restart threshold and heap flag) and Kubernetes + Compose (pm2, the limit alone).
    const pm2 = cells.filter((c) => c.config.verify!.snippets.includes('pm2'));
    const containers = cells.filter((c) => c.config.verify!.snippets.includes('kubernetes'));
    expect(containers.every((c) => c.config.verify!.snippets.join('+') === 'kubernetes+compose')).toBe(true);
    for (const group of [pm2, containers]) {
      expect(group[0]!.config.memoryMb).toBe(32);
      expect(group[0]!.status).not.toBe('ok'); // PM2 and hello do not fit in 32 MB
      expect(group.length).toBeGreaterThan(1);
      // Never decreasing: a memory failure (OOM kill, restarts) steps the limit up; any other failure (goodput, failed
      // requests) is repeated once at the same limit (deploy/verification.ts afterFailure), never stepped up.
      const limits = group.map((c) => c.config.memoryMb);
      for (let i = 1; i < limits.length; i++) {
        const before = judgeVerifyCell(group[i - 1]!, group[i - 1]!.config.verify!);
        const what = `attempt ${group[i]!.config.verify!.attempt} at ${limits[i]} MB after ${limits[i - 1]} MB: ${before.reasons.join('; ')}`;
        expect(limits[i], what).toBeGreaterThanOrEqual(limits[i - 1]!);
        expect(before.pass, what).toBe(false);
        if (limits[i] === limits[i - 1]) expect(before.memoryCaused, `a repeat at the same limit follows a non-memory failure: ${what}`).toBe(false);
        else expect(before.memoryCaused, `a step up follows a memory failure: ${what}`).toBe(true);
      }
      expect(Math.max(...limits)).toBeLessThanOrEqual(256);
      expect(group.every((c) => c.config.mode === 'pm2' && c.config.workers === 1 && c.config.cpuMillis === 500 && c.config.durationSec >= 3)).toBe(true);
    }
    expect(pm2.every((c) => c.config.recycleRssMb !== undefined)).toBe(true);
    // The container snippets set a heap flag only where the container traps found V8's default able to outgrow the
    // cap (issue 45), fit at each limit they run: the answer's own finding, read back.
    const answer = JSON.parse((await rightsize(['--db', db, '--json', 'report', String(runId)])).stdout) as { trapFindings?: TrapFinding[] };
    const heapTrap = answer.trapFindings?.find((f) => f.kind === 'heap-above-cap' && f.key === containers[0]!.config.verify!.key);
    const basis = heapTrap?.kind === 'heap-above-cap' ? { otherMb: heapTrap.otherMb, processes: heapTrap.processes } : null;
    for (const c of containers) {
      expect(c.config.recycleRssMb).toBeUndefined();
      expect(c.config.env.WEB_CONCURRENCY).toBe('1');
      expect(heapFlagOf(c.config.env), `cell ${c.config.index + 1} at ${c.config.memoryMb} MB`).toBe(basis ? heapFitMb(c.config.memoryMb, basis) : null);
    }

    // The snippets carry the passing cell's settings exactly, or the fallback with nothing unrun.
    const k8s = await rightsize(['--db', db, 'report', String(runId), '--emit', 'kubernetes']);
    const spec = parse(k8s.stdout) as { resources: { limits: { memory: string; cpu: string } } };
    const passedK8s = containers.find((c) => c.status === 'ok' && k8s.stdout.includes(`(cell ${c.config.index + 1})`));
    if (passedK8s) {
      expect(k8s.stdout.split('\n')[1]).toMatch(/^# Verified: ran \d+ s exactly as emitted on .* UTC \(cell \d+\): no OOM kill, no restart, .*goodput [\d,]+ req\/s .*, p99 .* Stepped up from 32 MB( \([^)]*\))?: /);
      expect(spec.resources.limits.memory).toBe(`${passedK8s.config.memoryMb}Mi`);
    } else {
      expect(k8s.stdout.split('\n')[1]).toMatch(/^# Not verified: nothing passed/);
      expect(spec.resources.limits.memory).toBe('256Mi');
    }
    const pm2Text = (await rightsize(['--db', db, 'report', String(runId), '--emit', 'pm2'])).stdout;
    const restart = /max_memory_restart: "(\d+)M"/.exec(pm2Text);
    const heap = /node_args: "--max-old-space-size=(\d+)"/.exec(pm2Text);
    if (pm2Text.split('\n')[1]!.startsWith('// Verified:')) {
      const passed = pm2.find((c) => pm2Text.includes(`(cell ${c.config.index + 1})`))!;
      expect(Number(restart![1])).toBe(passed.config.recycleRssMb);
      expect(heap ? Number(heap[1]) : null).toBe(heapFlagOf(passed.config.env));
      // Its one limit, then (where they differ) why the other targets' do, once.
      expect(pm2Text).toMatch(new RegExp(`limit of the container or host it runs in \\(PM2's daemon included\\) ${passed.config.memoryMb} MB, as verified[.;]`));
    } else {
      expect(pm2Text.split('\n')[1]).toMatch(/^\/\/ Not verified: nothing passed/);
      expect(restart).toBeNull();
      expect(heap).toBeNull();
    }
    // The grid's answer is untouched by the verification cells.
    const s = Store.open(db);
    try {
      expect(s.getRun(runId)!.status).toBe('completed');
    } finally {
      s.close();
    }
  });

  it('verify RUN --cell N refuses a cell that is not there, before anything starts', async () => {
    const r = await rightsize(['--db', db, 'verify', String(runId), '--cell', '99']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Run ${runId} has no cell 99.`);
    const none = await rightsize(['--db', db, 'verify', '999']);
    expect(none.code).toBe(2);
  });
});
