import { builtInApps, findApp, type AppDefinition } from '../../src-main/apps/catalog.ts';
import { ensureAppImage, type AppImage } from '../../src-main/docker/app-image.ts';
import { ensureBaseImage, type BaseImage } from '../../src-main/docker/base-image.ts';
import { checkEngine, docker, type EngineInfo } from '../../src-main/docker/client.ts';
import { stopReaper } from '../../src-main/reaper/reaper.ts';
import { afterAll, beforeAll } from 'vitest';

/**
 * Integration tests need a real engine. Without one they fail with the reason: a sizing tool whose
 * Docker tests pass by skipping has proved nothing.
 */
export async function requireDocker(): Promise<EngineInfo> {
  try {
    return await checkEngine();
  } catch (e) {
    throw new Error(`These tests need a running Docker engine: ${(e as Error).message}`);
  }
}

let base: Promise<BaseImage> | undefined;
const images = new Map<string, Promise<AppImage>>();

/** Base + app image, built once per test process. */
export function imageFor(name: string): Promise<{ app: AppDefinition; image: AppImage }> {
  const app = findApp(name);
  if (!app) throw new Error(`no app ${name}; known: ${builtInApps().map((a) => a.name).join(', ')}`);
  base ??= ensureBaseImage();
  if (!images.has(name)) images.set(name, ensureAppImage(app, () => base!));
  return images.get(name)!.then((image) => ({ app, image }));
}

/**
 * The load of a shared lane's cell that proves where it ran, what it removed or what it said, not how fast it went:
 * a constant 200 req/s. A closed loop would keep a load thread's core and the target's cap busy every second, CPU
 * the lanes beside it need (docs/contributing.md, "Where a test belongs").
 */
export const PACED_LOAD = { model: 'rate' as const, rates: [200], connections: 4 };

/**
 * The smallest real matrix: hello under node:cluster, 1 and 2 workers on half a core (two cells of a
 * few seconds). Tests override what they exercise (duration, warmup, connections).
 */
export function twoCellMatrix(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'two cells',
    apps: ['hello'],
    modes: ['cluster'],
    workers: [1, 2],
    cpuMillicores: [500],
    memoryMb: [128],
    load: { model: 'closed', connections: [4] },
    durationSec: 3,
    // No warm-up: a one-second warm-up costs 3–11 s (steadiness needs a 3 s window); the tests that
    // are about warm-up set it.
    warmupSec: 0,
    // The grid alone: these tests are about running cells, not about settling or verifying an answer.
    settleBudgetPct: 0,
    verify: false,
    ...over,
  };
}

/** For tests of the reaper and the lab lock: the base image they start from, and the process's reaper stopped at the end. */
export function withBaseImageAndReaper(): { baseTag: () => string } {
  let tag = '';
  beforeAll(async () => {
    await requireDocker();
    tag = (await ensureBaseImage()).tag;
  });
  afterAll(async () => {
    await stopReaper();
  });
  return { baseTag: () => tag };
}

/**
 * A label of one CLI call's own, added to the lane's: the lane's other files start containers meanwhile, so
 * "no container started" is asked of this call's label, not of the whole engine.
 */
export function callScope(name: string): { env: Record<string, string>; containers: () => Promise<string[]> } {
  const mine = `rightsize-test.case=${name}-${process.pid}-${Date.now()}`;
  const env = { RIGHTSIZE_LABELS: [process.env.RIGHTSIZE_LABELS, mine].filter(Boolean).join(',') };
  const containers = async (): Promise<string[]> =>
    (await docker().listContainers({ all: true, filters: JSON.stringify({ label: [mine] }) })).map((c) => c.Id);
  return { env, containers };
}
