import type { EventLoopUtilization } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ParentMessage, WorkerMessage, WorkerPlan, WorkerTotals } from './protocol.ts';
import type { LoadResult, LoadSecond } from '../engine/types.ts';

export type { WorkerPlan as LoadPlan } from './protocol.ts';

import { CLIENT_BOUND_ELU, RATE_SHORTFALL } from '../common/thresholds.ts';

export interface LoadCallbacks {
  onSecond?: (s: LoadSecond, warmup: boolean) => void;
  signal?: AbortSignal;
}

/**
 * Where the worker's code is: next to this module when bundled (dist/), or the TypeScript source
 * run through tsx when the engine itself runs from source (tests, `tsx`).
 */
function spawnWorker(plan: WorkerPlan): Worker {
  if (!import.meta.url.endsWith('.ts')) {
    // In a packaged app the worker file is unpacked beside the asar archive: threads cannot load from inside it.
    const file = fileURLToPath(new URL('./load-worker.js', import.meta.url)).replace(/app\.asar([\\/])/, 'app.asar.unpacked$1');
    return new Worker(file, { workerData: plan });
  }
  // Node 20 ignores --import in a worker's execArgv, so register tsx from a tiny bootstrap instead.
  const src = JSON.stringify(new URL('./worker.ts', import.meta.url).href);
  const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${src}); });`;
  return new Worker(boot, { eval: true, workerData: plan });
}

/** Runs one load phase (warmup + measurement) in a worker thread and returns the measured result. */
export function runLoad(plan: WorkerPlan, cb: LoadCallbacks = {}): Promise<LoadResult> {
  const worker = spawnWorker(plan);
  let eluStart: EventLoopUtilization | undefined;
  const stop = (): void => worker.postMessage({ type: 'stop' } satisfies ParentMessage);
  if (cb.signal?.aborted) stop();
  cb.signal?.addEventListener('abort', stop, { once: true });

  return new Promise<LoadResult>((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      cb.signal?.removeEventListener('abort', stop);
      fn();
      void worker.terminate();
    };
    if (plan.warmupSec === 0) eluStart = worker.performance.eventLoopUtilization();
    worker.on('message', (m: WorkerMessage) => {
      switch (m.type) {
        case 'measuring':
          eluStart = worker.performance.eventLoopUtilization();
          break;
        case 'second':
          cb.onSecond?.(m.second, m.warmup);
          break;
        case 'error':
          finish(() => reject(new Error(`load generator: ${m.message}`)));
          break;
        case 'done': {
          const elu = eluStart ? worker.performance.eventLoopUtilization(eluStart).utilization : 0;
          finish(() => resolve(toResult(plan, m.totals, elu)));
          break;
        }
      }
    });
    worker.on('error', (e) => finish(() => reject(e)));
    worker.on('exit', (code) => finish(() => reject(new Error(`load generator exited with code ${code} before it finished`))));
  });
}

function toResult(plan: WorkerPlan, t: WorkerTotals, elu: number): LoadResult {
  const secs = t.perSecondRps;
  const rpsMean = secs.length ? secs.reduce((a, b) => a + b, 0) / secs.length : t.measuredSec > 0 ? t.requests / t.measuredSec : 0;
  const rpsStddev = secs.length > 1 ? Math.sqrt(secs.reduce((a, b) => a + (b - rpsMean) ** 2, 0) / (secs.length - 1)) : 0;
  const reasons: string[] = [];
  if (elu >= CLIENT_BOUND_ELU) {
    reasons.push(`the load thread was busy ${Math.round(elu * 100)} % of the time (near one full core)`);
  }
  const targetRate = plan.load.model === 'rate' ? plan.load.rate : undefined;
  if (targetRate && rpsMean < targetRate * RATE_SHORTFALL) {
    reasons.push(`reached ${Math.round(rpsMean)} of ${targetRate} req/s requested`);
  }
  return {
    model: plan.load.model,
    connections: plan.load.connections,
    ...(targetRate ? { targetRate } : {}),
    measuredSec: t.measuredSec,
    requests: t.requests,
    bytes: t.bytes,
    rpsMean,
    rpsStddev,
    bytesPerSec: t.measuredSec > 0 ? t.bytes / t.measuredSec : 0,
    latencyUs: t.latencyUs,
    latencyFrom: plan.load.model === 'rate' ? 'intended-send' : 'send',
    statusCounts: t.statusCounts,
    errors: t.errors,
    timeouts: t.timeouts,
    non2xx: t.non2xx,
    clientElu: elu,
    clientBound: reasons.length > 0,
    ...(reasons.length ? { clientBoundReason: reasons.join('; ') } : {}),
  };
}
