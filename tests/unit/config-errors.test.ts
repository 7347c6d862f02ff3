// Matrices as people write them by hand, each wrong in its own way: refused by `run --config` (exit 2)
// and by `serve` (matrix.validate and runs.start), every problem named with its field in plain words,
// and nothing started. No Docker: the CLI's way is taken in-process from the file to its refusal (the
// file read as `run` reads it, checked against the limits a run on this machine takes, and the CLI
// error that refusal becomes); `serve`'s through the contract, on a Lab given an engine at start-up.
// tests/integration/config-errors.test.ts runs one of these through the real CLI with Docker.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appLibrary } from '../../src-main/apps/library.ts';
import { runInput } from '../../src-main/cli/commands/run.ts';
import { CliError, EXIT } from '../../src-main/cli/exit-codes.ts';
import { failureBeforeStart } from '../../src-main/cli/run-lifecycle.ts';
import type { EngineInfo } from '../../src-main/docker/client.ts';
import { MatrixInvalidError, validateMatrix } from '../../src-main/engine/matrix.ts';
import { limitsWhereCellsRun } from '../../src-main/engine/run/limits.ts';
import { Lab } from '../../src-main/service/lab.ts';
import { Store } from '../../src-main/store/index.ts';
import { dispatch } from '../../src-main/transports/dispatch.ts';
import { tempDir } from '../helpers/cli.ts';

const ok = { apps: ['hello'], modes: ['cluster'], workers: [1], cpuMillicores: [500], memoryMb: [128], durationSec: 2, warmupSec: 0, settleBudgetPct: 0, verify: false };
const without = (key: keyof typeof ok): Record<string, unknown> => Object.fromEntries(Object.entries(ok).filter(([k]) => k !== key));

// A list or null reaches the validation as it is (only a plain object gets --yes), and is named as such.
const notAnObject = /^\(matrix\): should be an object/m;

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

/** Docker as start-up found it: 2 cores, 8 GiB (no Docker is asked). */
const ENGINE = { version: '27.0.0', cpus: 2, memoryBytes: 2 ** 33 } as EngineInfo;

let store: Store;
let lab: Lab;
const dir = tempDir('rightsize-config-errors-');
beforeAll(async () => {
  store = Store.open(path.join(dir, 'h.db'));
  lab = await Lab.open({ store, startup: { interruptedRuns: [], sweptContainers: [], engine: ENGINE }, recheckMs: { down: 60_000, up: 60_000 } });
});
afterAll(async () => lab.close());

/**
 * `run --config FILE` up to its refusal: the file read as the command reads it (runInput), checked as
 * the run checks it where its cells run (this machine's limits: limitsWhereCellsRun), and the refusal
 * as the command reports it (failureBeforeStart: the CliError main prints as "rightsize: …").
 */
async function runRefusal(matrix: unknown, i: number): Promise<CliError> {
  const file = path.join(dir, `m${i}.json`);
  writeFileSync(file, JSON.stringify(matrix, null, 2));
  const { input } = runInput({ config: file });
  const { limits } = await limitsWhereCellsRun(ENGINE, appLibrary(store), undefined);
  const v = validateMatrix(input, limits);
  if (v.ok) throw new Error('the matrix was taken as valid');
  try {
    failureBeforeStart(new MatrixInvalidError(v.problems), false, process.stdout, 'run');
  } catch (e) {
    if (e instanceof CliError) return e;
    throw e;
  }
  throw new Error('not refused');
}

describe(`${CASES.length} malformed matrices through run --config`, () => {
  it.each(CASES.map((c, i) => [...c, i] as const))('%s: exit 2, with its messages in words', async (name, matrix, want, i) => {
    const e = await runRefusal(matrix, i);
    expect(e.exitCode, name).toBe(EXIT.usage);
    expect(e.message, name).toMatch(/^The matrix is not valid; nothing was started:\n/);
    const lines = e.message.split('\n').slice(1).map((l) => l.replace(/^ {2}- /, '')).join('\n');
    for (const w of want) expect(lines, name).toMatch(w);
    expect(e.message, name).not.toMatch(/Invalid input|expected array|received undefined|Unrecognized key/);
  });

  it('a file that is not JSON, and a misspelt preset, are usage errors before anything is opened', () => {
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, '{"apps": ["hello"],');
    expect(() => runInput({ config: bad })).toThrow(expect.objectContaining({ exitCode: EXIT.usage, message: expect.stringContaining('is not valid JSON') }));
    expect(() => runInput({ preset: 'quik' })).toThrow(
      expect.objectContaining({ exitCode: EXIT.usage, message: expect.stringMatching(/^Unknown preset "quik"\. Did you mean "quick"\? Presets: quick, /) }),
    );
  });

  it('a preset name in any case is the preset; a misspelt one in capitals still gets its suggestion', () => {
    for (const name of ['QUICK', 'Quick']) expect(runInput({ preset: name }).preset, name).toBe('quick');
    expect(() => runInput({ preset: 'QUIK' })).toThrow(/Unknown preset "QUIK"\. Did you mean "quick"\?/);
  });
});

describe(`${CASES.length} malformed matrices through serve`, () => {
  it.each(CASES)('%s: matrix.validate and runs.start both refuse it with its messages', async (_name, matrix, want) => {
    const checked = (await dispatch(lab, 'matrix.validate', { matrix })) as { ok: true; value: { ok: boolean; problems: { path: string; message: string }[] } };
    expect(checked.ok).toBe(true);
    expect(checked.value.ok).toBe(false);
    const lines = checked.value.problems.map((p) => `${p.path}: ${p.message}`).join('\n');
    for (const w of want) expect(lines).toMatch(w);

    const started = await dispatch(lab, 'runs.start', { matrix });
    expect(started.ok).toBe(false);
    if (started.ok) return;
    expect(started.error.code).toBe('MATRIX_INVALID');
    expect(started.error.fields).toEqual(checked.value.problems); // the same words either way
    expect(lab.store.listRuns({}).total).toBe(0);
  });

  it('a misspelt field of the call itself, and a misspelt preset, get a suggestion', async () => {
    const typo = await dispatch(lab, 'runs.start', { matrix: ok, presets: 'quick' });
    expect(typo).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT', fields: [{ path: 'presets', message: 'is not a field here. Did you mean "preset"?' }] } });
    const preset = await dispatch(lab, 'runs.start', { matrix: ok, preset: 'quik' });
    expect(preset.ok).toBe(false);
    if (!preset.ok) expect(preset.error.fields?.[0]?.message).toMatch(/^Unknown preset "quik"\. Did you mean "quick"\? Presets: quick, /);
    expect(lab.store.listRuns({}).total).toBe(0);
  });
});
