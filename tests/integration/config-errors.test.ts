import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOwnContainers } from '../../src-main/docker/sweep.ts';
import type { RunningServer } from '../../src-main/transports/http-server.ts';
import type { Lab } from '../../src-main/service/lab.ts';
import { cli, tempDir } from '../helpers/cli.ts';
import { requireDocker } from '../helpers/docker.ts';
import { httpCall, serveLab } from '../helpers/lab.ts';

// Matrices as people write them by hand, each wrong in its own way: refused through the CLI
// (exit 2) and through `serve` (matrix.validate and runs.start), every problem named with its
// field in plain words, and nothing started: no run row, no container.

const ok = { apps: ['hello'], modes: ['cluster'], workers: [1], cpuMillicores: [500], memoryMb: [128], durationSec: 2, warmupSec: 0, settleBudgetPct: 0, verify: false };
const without = (key: keyof typeof ok): Record<string, unknown> => Object.fromEntries(Object.entries(ok).filter(([k]) => k !== key));

// The CLI spreads the file into an object (to add --yes), so a top-level list or null reaches the
// engine as an object with no fields: then every missing field is named instead.
const notAnObject = /\(matrix\): should be an object|apps: is missing: give a list of app names/;

/** [what is wrong, the matrix, what the answer must say (each, as a substring or pattern)] */
const CASES: [string, unknown, (string | RegExp)[]][] = [
  ['missing cpuMillicores, and other problems beside it', { ...without('cpuMillicores'), workers: [0], memoryMb: [8] }, ['cpuMillicores: is missing: give a list of CPU caps in millicores', 'workers: 0 is not a worker count', 'memoryMb: 8 MB is below the minimum']],
  ['misspelt cpu', { ...without('cpuMillicores'), cpu: [500] }, ['cpu: is not a field here. Did you mean "cpuMillicores"?', 'cpuMillicores: is missing']],
  ['misspelt repetition', { ...ok, repetition: 3 }, ['repetition: is not a field here. Did you mean "repetitions"?']],
  ['misspelt worker', { ...without('workers'), worker: [1] }, ['worker: is not a field here. Did you mean "workers"?', 'workers: is missing']],
  ['misspelt durationSecs', { ...ok, durationSecs: 5 }, ['durationSecs: is not a field here. Did you mean "durationSec"?']],
  ['wrong case of a field', { ...without('memoryMb'), memoryMB: [128] }, ['memoryMB: is not a field here. Did you mean "memoryMb"?']],
  ['misspelt load field', { ...ok, load: { model: 'closed', connection: [5] } }, ['load.connection: is not a field here. Did you mean "connections"?', 'load.connections: is missing']],
  ['load without a model', { ...ok, load: { connections: [5] } }, ['load.model: is missing: give "closed"']],
  ['unknown load model', { ...ok, load: { model: 'rates', rates: [100] } }, ['load.model: "rates" is not one of "closed", "rate". Did you mean "rate"?']],
  ['a number where a list goes', { ...ok, cpuMillicores: 500 }, ['cpuMillicores: should be a list of CPU caps in millicores', 'not the number 500']],
  ['text in a list of numbers', { ...ok, memoryMb: ['128'] }, ['memoryMb.0: should be a number, not the text "128"']],
  ['apps as text', { ...ok, apps: 'hello' }, ['apps: should be a list of app names', 'not the text "hello"']],
  ['misspelt app', { ...ok, apps: ['helo'] }, ['apps: unknown app "helo". Did you mean "hello"?']],
  ['mode in the wrong case', { ...ok, modes: ['Cluster'] }, ['modes.0: "Cluster" is not one of "single", "cluster", "pm2". Did you mean "cluster"?']],
  ['unknown mode', { ...ok, modes: ['fork'] }, ['modes.0: "fork" is not one of "single", "cluster", "pm2".']],
  ['empty dimensions', { ...ok, workers: [], memoryMb: [] }, ['workers: needs at least one value', 'memoryMb: needs at least one value']],
  ['out of range everywhere', { ...ok, cpuMillicores: [0, 640_000], durationSec: 0, repetitions: 101 }, ['cpuMillicores: 0 is not a positive whole number', 'cpuMillicores: 640000m is more than this host', 'durationSec: 0 is not a whole number of seconds', 'repetitions: 101 is not a whole number from 1 to 100']],
  ['env value not text', { ...ok, env: { UV_THREADPOOL_SIZE: 4 } }, ['env.UV_THREADPOOL_SIZE: should be text (in quotes), not the number 4']],
  ['bad request set', { ...ok, requestSets: [{ name: '', requests: [] }] }, ['requestSets.0.name: must not be empty', 'requestSets.0.requests: needs at least one item']],
  ['misspelt order value and a boolean as text', { ...ok, order: 'shufle', confirmLarge: 'yes' }, ['order: "shufle" is not one of "fixed", "shuffle". Did you mean "shuffle"?', 'confirmLarge: should be true or false, not the text "yes"']],
  ['a list instead of an object', [ok], [notAnObject]],
  ['null', null, [notAnObject]],
  ['rate over too many connections', { ...ok, load: { model: 'rate', rates: [5], connections: 10 } }, ['load.rates: 5 req/s over 10 connections is under one request a second each']],
];

beforeAll(async () => {
  await requireDocker();
});

describe(`${CASES.length} malformed matrices through the CLI`, () => {
  const dir = tempDir();
  const db = path.join(dir, 'history.db');
  let containersBefore: string[];
  beforeAll(async () => {
    containersBefore = await listOwnContainers();
  });

  it('each is refused with exit 2 and its messages; no run was created and no container started', async () => {
    // Four CLIs at a time: each is a short process that never reaches Docker's containers.
    const results: { name: string; code: number | null; stderr: string; want: (string | RegExp)[] }[] = [];
    const queue = CASES.map(([name, matrix, want], i) => ({ name, matrix, want, file: path.join(dir, `m${i}.json`) }));
    for (const q of queue) writeFileSync(q.file, JSON.stringify(q.matrix, null, 2));
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let q = queue.shift(); q; q = queue.shift()) {
          const r = await cli(['--db', db, 'run', '--config', q.file]);
          results.push({ name: q.name, code: r.code, stderr: r.stderr, want: q.want });
        }
      }),
    );
    for (const r of results) {
      expect(r.code, `${r.name}: ${r.stderr}`).toBe(2);
      expect(r.stderr, r.name).toMatch(/The matrix is not valid; nothing was started/);
      for (const w of r.want) expect(r.stderr, r.name).toMatch(w);
      expect(r.stderr, r.name).not.toMatch(/Invalid input|expected array|received undefined|Unrecognized key/);
    }
    const runs = await cli(['--db', db, 'runs', '--json']);
    expect(JSON.parse(runs.stdout).total).toBe(0);
    expect(await listOwnContainers()).toEqual(containersBefore);
  });

  it('a file that is not JSON, and a misspelt preset, are refused with exit 2', async () => {
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, '{"apps": ["hello"],');
    const notJson = await cli(['--db', db, 'run', '--config', bad]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('is not valid JSON');
    const preset = await cli(['--db', db, 'run', '--preset', 'quik']);
    expect(preset.code).toBe(2);
    expect(preset.stderr).toMatch(/Unknown preset "quik"\. Did you mean "quick"\? Presets: quick, /);
    expect(JSON.parse((await cli(['--db', db, 'runs', '--json'])).stdout).total).toBe(0);
  });

  it('a preset name in any case is the preset (shown by the next check failing instead: a bad objective), nothing started', async () => {
    // The objective is checked right after the preset is found, before anything starts: its message
    // instead of "Unknown preset" proves QUICK and Quick were taken as quick.
    for (const name of ['QUICK', 'Quick']) {
      const r = await cli(['--db', db, 'run', '--preset', name, '--slo', 'p99<=banana']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr, name).not.toMatch(/Unknown preset/);
      expect(r.stderr, name).toMatch(/banana|objective|slo/i);
    }
    const wrong = await cli(['--db', db, 'run', '--preset', 'QUIK', '--slo', 'p99<=banana']);
    expect(wrong.stderr).toMatch(/Unknown preset "QUIK"\. Did you mean "quick"\?/);
    expect(JSON.parse((await cli(['--db', db, 'runs', '--json'])).stdout).total).toBe(0);
  });
});

describe(`${CASES.length} malformed matrices through serve`, () => {
  let server: RunningServer;
  let lab: Lab;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ server, lab, close } = await serveLab());
  });
  afterAll(async () => close());

  it.each(CASES)('%s: matrix.validate and runs.start both refuse it with its messages', async (_name, matrix, want) => {
    const checked = (await httpCall(server, 'matrix.validate', { matrix })) as { ok: true; value: { ok: boolean; problems: { path: string; message: string }[] } };
    expect(checked.ok).toBe(true);
    expect(checked.value.ok).toBe(false);
    const lines = checked.value.problems.map((p) => `${p.path}: ${p.message}`).join('\n');
    for (const w of want) expect(lines).toMatch(w === notAnObject ? /^\(matrix\): should be an object/ : w);

    const started = await httpCall(server, 'runs.start', { matrix });
    expect(started.ok).toBe(false);
    if (started.ok) return;
    expect(started.error.code).toBe('MATRIX_INVALID');
    expect(started.error.fields).toEqual(checked.value.problems); // the same words either way
    expect(lab.store.listRuns({}).total).toBe(0);
  });

  it('a misspelt field of the call itself, and a misspelt preset, get a suggestion', async () => {
    const typo = await httpCall(server, 'runs.start', { matrix: ok, presets: 'quick' });
    expect(typo).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT', fields: [{ path: 'presets', message: 'is not a field here. Did you mean "preset"?' }] } });
    const preset = await httpCall(server, 'runs.start', { matrix: ok, preset: 'quik' });
    expect(preset.ok).toBe(false);
    if (!preset.ok) expect(preset.error.fields?.[0]?.message).toMatch(/^Unknown preset "quik"\. Did you mean "quick"\? Presets: quick, /);
    expect(lab.store.listRuns({}).total).toBe(0);
  });
});
