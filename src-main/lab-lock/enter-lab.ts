import { ensureBaseImage, prepareBaseInputs, type BaseImage, type BaseStrategy } from '../docker/base-image.ts';
import { docker, type EngineInfo } from '../docker/client.ts';
import { withBuildSignal } from '../docker/image-build.ts';
import { LABEL, PRODUCT } from '../docker/labels.ts';
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
 * A Rightsize base image already on this engine (any strategy, any version: the reaper only needs
 * its `node`, the lock container is never started), newest first; undefined on a fresh engine.
 */
async function baseImageAtHand(): Promise<string | undefined> {
  const images = await docker().listImages({
    filters: JSON.stringify({ label: [`${LABEL.product}=${PRODUCT}`, `${LABEL.kind}=base`], dangling: ['false'] }),
  });
  const newest = images.sort((a, b) => b.Created - a.Created)[0];
  return newest ? (newest.RepoTags?.find((t) => t !== '<none>:<none>') ?? newest.Id) : undefined;
}

/**
 * What a run and a user-app build both do before they take CPU: this session's reaper, the
 * engine-wide lab lock, then — under the lock, so a pull or an offline build never competes with
 * another process's measurement — the base image. The reaper and the lock container are made from
 * a base image already on the engine, so the reaper runs before anything else of this session
 * exists and a kill at any moment leaves nothing. On a fresh engine (no base image at all) the base
 * is made first, as nobody can be measuring there: a holder's lock container pins its base image.
 * Without a reaper (an engine that refuses the socket mount) the work still goes on — the next
 * Rightsize start-up sweep removes what a crash leaves — and `noReaper` says why.
 */
export async function enterLab(
  engine: EngineInfo,
  o: EnterLabOptions,
): Promise<{ base: BaseImage; lease: LabLease; noReaper?: string }> {
  const ensureBase = (): Promise<BaseImage> =>
    withBuildSignal(o.signal, () =>
      ensureBaseImage({ ...(o.strategy ? { strategy: o.strategy } : {}), ...(o.onLog ? { onLog: o.onLog } : {}) }),
    );
  let noReaper: string | undefined;
  const reaper = (image: string): Promise<void> =>
    ensureReaper(image, engine).catch((e: Error) => void (noReaper = e.message));
  const lock = (image: string): Promise<LabLease> =>
    acquireLab({
      image,
      what: o.what,
      wait: Boolean(o.wait),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.onWait ? { onWait: o.onWait } : {}),
    });

  prepareBaseInputs(o.strategy ? { strategy: o.strategy } : {});
  const atHand = await baseImageAtHand();
  if (!atHand) {
    const base = await ensureBase();
    await reaper(base.tag);
    const lease = await lock(base.tag);
    return { base, lease, ...(noReaper ? { noReaper } : {}) };
  }
  await reaper(atHand);
  const lease = await lock(atHand);
  try {
    const base = await ensureBase();
    return { base, lease, ...(noReaper ? { noReaper } : {}) };
  } catch (e) {
    await lease.release().catch(() => {});
    throw e;
  }
}
