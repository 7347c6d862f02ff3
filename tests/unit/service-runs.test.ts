// The run supervisor through the contract: one run at a time (also while a start is still being
// checked), runs.cancel, the active run in the engine status and its events on the streams, apps in
// use kept; and the service's one error translation (sync handlers stay sync). No Docker: the run
// is a stand-in that lives until it is cancelled.
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ContractError, type EngineStatus } from '../../src-main/contract/api.ts';
import type { EngineInfo } from '../../src-main/docker/client.ts';
import { SizeSpecInvalidError } from '../../src-main/engine/auto-size/spec.ts';
import { MatrixInvalidError } from '../../src-main/engine/matrix.ts';
import { TargetNotReadyError } from '../../src-main/engine/run-matrix.ts';
import { LabBusyError } from '../../src-main/lab-lock/lab-lock.ts';
import type { RunEvent } from '../../src-main/model/events.ts';
import { contractErrorData, guard, toContractError } from '../../src-main/service/errors.ts';
import { Lab } from '../../src-main/service/lab.ts';
import { Store } from '../../src-main/store/index.ts';
import { UnknownTargetError } from '../../src-main/targets/registry.ts';
import { dispatch } from '../../src-main/transports/dispatch.ts';
import { tempDir } from '../helpers/cli.ts';

const runs = vi.hoisted(() => ({ started: 0 }));
vi.mock('../../src-main/engine/run-matrix.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src-main/engine/run-matrix.ts')>()),
  /** A run that says it started, then lives until it is cancelled. */
  runMatrix: async (
    _input: unknown,
    o: { signal: AbortSignal; onRunId: (id: number) => void; onEvent: (e: RunEvent) => void },
  ) => {
    const runId = ++runs.started;
    o.onRunId(runId);
    o.onEvent({ type: 'log', runId, level: 'info', message: 'going' });
    await new Promise((resolve) => o.signal.addEventListener('abort', resolve, { once: true }));
    return { runId, status: 'cancelled', cells: [] };
  },
}));

/** Docker as start-up found it: one core and 4 GiB are all the one-run rule needs (no Docker is asked). */
const ENGINE = { version: '27.0.0', cpus: 1, memoryBytes: 2 ** 32 } as EngineInfo;
const matrix = {
  apps: ['hello'],
  modes: ['cluster'],
  workers: [1],
  cpuMillicores: [500],
  memoryMb: [256],
  durationSec: 5,
  warmupSec: 0,
};

let lab: Lab;
beforeEach(async () => {
  runs.started = 0;
  const store = Store.open(path.join(tempDir('rightsize-service-runs-'), 'r.db'));
  lab = await Lab.open({
    store,
    startup: { interruptedRuns: [], sweptContainers: [], engine: ENGINE },
    recheckMs: { down: 60_000, up: 60_000 },
  });
});
afterEach(async () => lab.close());

const call = (name: string, input: unknown) => dispatch(lab, name, input);

describe('one run at a time', () => {
  it('refuses a second start while one runs, cancels it, then starts again; the status names the run', async () => {
    const statuses: (number | null)[] = [];
    const progress: RunEvent[] = [];
    const stopStatus = lab.subscribe('engine.status', {}, (s) => statuses.push(s.activeRunId));
    const stopProgress = lab.subscribe('run.progress', { runId: 1 }, (e) => progress.push(e));
    expect(await call('runs.start', { matrix })).toEqual({ ok: true, value: { runId: 1 } });
    expect((lab.handlers['engine.status']({}) as EngineStatus).activeRunId).toBe(1); // answered at once, not a promise
    expect(await call('runs.start', { matrix })).toMatchObject({
      ok: false,
      error: { code: 'CONFLICT', message: 'Run 1 is in progress: wait for it or cancel it first.' },
    });
    expect(await call('apps.build', { name: 'hello' })).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
    expect(await call('runs.delete', { runId: 1 })).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
    expect(await call('runs.cancel', { runId: 2 })).toEqual({ ok: true, value: { cancelled: false } });
    expect(await call('runs.cancel', { runId: 1 })).toEqual({ ok: true, value: { cancelled: true } });
    await vi.waitFor(() => expect((lab.handlers['engine.status']({}) as EngineStatus).activeRunId).toBeNull());
    expect(await call('runs.start', { matrix })).toEqual({ ok: true, value: { runId: 2 } });
    expect(statuses).toEqual([null, 1, null, 2]);
    expect(progress).toEqual([{ type: 'log', runId: 1, level: 'info', message: 'going' }]);
    stopStatus();
    stopProgress();
  });

  it('two starts at once: the second is refused while the first is still being checked', async () => {
    const [a, b] = await Promise.all([call('runs.start', { matrix }), call('runs.start', { matrix })]);
    expect(a).toEqual({ ok: true, value: { runId: 1 } });
    expect(b).toMatchObject({
      ok: false,
      error: { code: 'CONFLICT', message: 'A run is in progress: wait for it or cancel it first.' },
    });
    expect(runs.started).toBe(1);
  });

  it('an invalid matrix is MATRIX_INVALID with its fields, and leaves the lab free', async () => {
    const r = await call('runs.start', { matrix: { ...matrix, workers: [0] } });
    expect(r).toMatchObject({ ok: false, error: { code: 'MATRIX_INVALID', fields: [{ path: 'workers' }] } });
    expect(await call('runs.start', { matrix })).toEqual({ ok: true, value: { runId: 1 } });
  });

  it('without Docker: DOCKER_UNAVAILABLE in the words of the last check', async () => {
    const store = Store.open(path.join(tempDir('rightsize-service-runs-'), 'd.db'));
    const down = await Lab.open({
      store,
      startup: { interruptedRuns: [], sweptContainers: [], dockerError: 'no socket here' },
      recheckMs: { down: 60_000, up: 60_000 },
    });
    try {
      expect(await dispatch(down, 'runs.start', { matrix })).toMatchObject({
        ok: false,
        error: { code: 'DOCKER_UNAVAILABLE', message: 'no socket here' },
      });
    } finally {
      await down.close();
    }
  });
});

describe('the one error translation', () => {
  it('gives each engine error its contract code, fields kept', () => {
    const problems = [{ path: 'workers', message: 'bad' }];
    expect(contractErrorData(new MatrixInvalidError(problems))).toMatchObject({
      code: 'MATRIX_INVALID',
      fields: problems,
    });
    expect(contractErrorData(new SizeSpecInvalidError(problems))).toMatchObject({
      code: 'SIZE_INVALID',
      fields: problems,
    });
    expect(contractErrorData(new TargetNotReadyError('not ready'))).toEqual({ code: 'CONFLICT', message: 'not ready' });
    expect(contractErrorData(new UnknownTargetError('x', ['local']))).toMatchObject({ code: 'NOT_FOUND' });
    expect(contractErrorData(new Error('boom'))).toEqual({ code: 'INTERNAL', message: 'boom' });
    expect(contractErrorData(new Error('boom'), 'apps.build')).toEqual({ code: 'BUILD_FAILED', message: 'boom' });
    const busy = new LabBusyError({
      id: 'c1',
      session: 's',
      what: 'run "quick"',
      since: new Date().toISOString(),
    } as never);
    expect((toContractError(busy, 'apps.build') as ContractError).message).toMatch(/Build when it is done\.$/);
    expect((toContractError(busy, 'runs.start') as ContractError).message).toMatch(/Try again when it is done\.$/);
  });

  it('keeps a handler sync when it was, and turns its throws, sync or async, into contract errors', async () => {
    expect(guard('engine.status', () => 42)(undefined)).toBe(42);
    expect(() =>
      guard('runs.start', () => {
        throw new MatrixInvalidError([]);
      })(undefined),
    ).toThrow(ContractError);
    await expect(
      guard('runs.size', () => Promise.reject(new SizeSpecInvalidError([])))(undefined),
    ).rejects.toMatchObject({ code: 'SIZE_INVALID' });
  });
});
