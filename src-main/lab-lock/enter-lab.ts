import { ensureBaseImage, type BaseImage, type BaseStrategy } from '../docker/base-image.ts';
import type { EngineInfo } from '../docker/client.ts';
import { withBuildSignal } from '../docker/image-build.ts';
import { ensureReaper } from '../reaper/reaper.ts';
import { acquireLab, type LabHolder, type LabLease } from './lab-lock.ts';

export interface EnterLabOptions {
  /** Who asks, as the holder's message shows it: `run "quick" (history: …)`, `a build of "shop" …`. */
  what: string;
  strategy?: BaseStrategy;
  signal?: AbortSignal;
  onLog?: (line: string) => void;
  wait?: boolean;
  onWait?: (holder: LabHolder) => void;
}

/**
 * What a run and a user-app build both do before they take CPU: the base image (the reaper and the
 * lock container are made from it), this session's reaper, then the engine-wide lab lock. Without a
 * reaper (an engine that refuses the socket mount) the work still goes on — the next Rightsize
 * start-up sweep removes what a crash leaves — and `noReaper` says why.
 */
export async function enterLab(engine: EngineInfo, o: EnterLabOptions): Promise<{ base: BaseImage; lease: LabLease; noReaper?: string }> {
  const base = await withBuildSignal(o.signal, () => ensureBaseImage({ ...(o.strategy ? { strategy: o.strategy } : {}), ...(o.onLog ? { onLog: o.onLog } : {}) }));
  let noReaper: string | undefined;
  await ensureReaper(base.tag, engine).catch((e: Error) => (noReaper = e.message));
  const lease = await acquireLab({ image: base.tag, what: o.what, wait: Boolean(o.wait), ...(o.signal ? { signal: o.signal } : {}), ...(o.onWait ? { onWait: o.onWait } : {}) });
  return { base, lease, ...(noReaper ? { noReaper } : {}) };
}
