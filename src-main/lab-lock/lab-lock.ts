import type Docker from 'dockerode';
import { docker } from '../docker/client.ts';
import { LABEL, ownLabels, PRODUCT } from '../docker/labels.ts';
import { currentSession, describeSession, isSessionAlive } from '../session/session.ts';

/**
 * One measuring process per Docker engine. Two runs at once would pin their targets to the same
 * cores and each store the fight as its result, so a run (or a build of a user's app) first takes
 * the lab: a never-started container named {@link LAB_LOCK_NAME}. Container names are unique per
 * engine and creating one is atomic, so whoever creates it holds the lab, whichever process,
 * database or user it comes from; its labels say who and since when. It is labelled with the
 * holder's session, so the holder's reaper removes it within a second of the holder dying; a holder
 * found dead (pid + start time) is removed here too. Removal is by container id, never by name, so a
 * stale-lock cleanup can never remove a lock someone else has just taken.
 */
export const LAB_LOCK_NAME = 'rightsize-lab'; // one name per engine, on purpose: no setting may split the lab

export interface LabHolder {
  /** The lock container's id. */
  id: string;
  session: string;
  /** What holds it, in words: 'run "quick" (history: /path/rightsize.db)'. */
  what: string;
  /** ISO time it was taken. */
  since: string;
}

/** Someone else holds the lab; the message names who and since when. */
export class LabBusyError extends Error {
  readonly code = 'LAB_BUSY';
  constructor(readonly holder: LabHolder) {
    super(`The lab is busy: ${describeHolder(holder)}. Only one run or build measures on a Docker engine at a time.`);
    this.name = 'LabBusyError';
  }
}

/** "run "quick" (…), pid 1234 on laptop, since 14:02:11 (3 min ago)". */
export function describeHolder(h: LabHolder, now = Date.now()): string {
  const since = new Date(h.since);
  const ago = Math.max(0, Math.round((now - since.getTime()) / 1000));
  const agoText =
    ago < 90 ? `${ago} s ago` : ago < 5400 ? `${Math.round(ago / 60)} min ago` : `${(ago / 3600).toFixed(1)} h ago`;
  const time = Number.isNaN(since.getTime())
    ? 'an unknown time'
    : since.toLocaleString(undefined, { hour12: false, timeZoneName: 'short' });
  return `${h.what} holds it (${describeSession(h.session)}) since ${time}, ${agoText}`;
}

export interface LabLease {
  holder: LabHolder;
  /** Gives the lab back; safe to call twice. */
  release(): Promise<void>;
}

export interface AcquireOptions {
  /** Any local image: the lock container is created, never started. */
  image: string;
  what: string;
  /** Queue until the lab is free instead of throwing LabBusyError (also when RIGHTSIZE_WAIT_FOR_LAB=1). */
  wait?: boolean;
  signal?: AbortSignal;
  /** Called when waiting starts, and again whenever the holder changes. */
  onWait?: (holder: LabHolder) => void;
}

const statusOf = (e: unknown): number | undefined => (e as { statusCode?: number }).statusCode;

/** Who holds the lab now, or null when it is free. */
export async function labHolder(): Promise<LabHolder | null> {
  try {
    const info = await docker().getContainer(LAB_LOCK_NAME).inspect();
    const labels = info.Config.Labels ?? {};
    return {
      id: info.Id,
      session: labels[LABEL.session] ?? '',
      what:
        labels[LABEL.what] ??
        (labels[LABEL.product] === PRODUCT
          ? 'a Rightsize process'
          : `a container named ${LAB_LOCK_NAME} that is not Rightsize's`),
      since: labels[LABEL.since] ?? info.Created,
    };
  } catch (e) {
    if (statusOf(e) === 404) return null;
    throw e;
  }
}

/** Takes the lab, waiting (with `wait`) or throwing LabBusyError while someone alive holds it. */
export async function acquireLab(o: AcquireOptions): Promise<LabLease> {
  // RIGHTSIZE_WAIT_FOR_LAB=1: every start queues as `run --wait` does (a CI job's parallel steps).
  const wait = Boolean(o.wait) || process.env.RIGHTSIZE_WAIT_FOR_LAB === '1';
  let told: string | undefined;
  for (;;) {
    if (o.signal?.aborted) throw abortError();
    const since = new Date().toISOString();
    try {
      const c = await docker().createContainer({
        name: LAB_LOCK_NAME,
        Image: o.image,
        Entrypoint: ['node', '-e', '0'],
        Cmd: [],
        Labels: {
          ...ownLabels(),
          [LABEL.session]: currentSession(),
          [LABEL.kind]: 'lab-lock',
          [LABEL.what]: o.what,
          [LABEL.since]: since,
        },
      });
      return lease(c, { id: c.id, session: currentSession(), what: o.what, since });
    } catch (e) {
      if (statusOf(e) !== 409) throw e; // 409: the name is taken
    }
    const holder = await labHolder();
    if (!holder) continue; // released meanwhile
    if (holder.session && !isSessionAlive(holder.session)) {
      await removeById(holder.id); // its owner died and its reaper did not run (yet)
      continue;
    }
    if (!wait) throw new LabBusyError(holder);
    if (told !== holder.id) o.onWait?.(holder);
    told = holder.id;
    await released(holder.id, o.signal);
  }
}

function lease(c: Docker.Container, holder: LabHolder): LabLease {
  let done: Promise<void> | undefined;
  return { holder, release: () => (done ??= removeById(c.id)) };
}

async function removeById(id: string): Promise<void> {
  try {
    await docker().getContainer(id).remove({ force: true });
  } catch (e) {
    if (statusOf(e) !== 404 && statusOf(e) !== 409) throw e;
  }
}

/**
 * Resolves when the lock container `id` is gone: on its destroy event, or a re-check every 2 s (a holder may die
 * without its reaper).
 */
async function released(id: string, signal?: AbortSignal): Promise<void> {
  const events = (await docker().getEvents({
    filters: JSON.stringify({ container: [id], event: ['destroy'] }),
  })) as NodeJS.ReadableStream & { destroy?: () => void };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => finish(), 2000);
      const finish = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortError());
      };
      events.on('data', finish);
      events.on('error', finish);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  } finally {
    events.destroy?.();
  }
}

function abortError(): Error {
  const e = new Error('cancelled while waiting for the lab');
  e.name = 'AbortError';
  return e;
}
