import { AsyncLocalStorage } from 'node:async_hooks';
import { docker } from './client.ts';
import { LABEL, ownLabels } from './labels.ts';
import type { BuildContext } from './build-context.ts';

export class ImageBuildError extends Error {
  readonly code = 'IMAGE_BUILD_FAILED';
  constructor(
    readonly tag: string,
    readonly logTail: string[],
    reason: string,
    firstErrors: string[] = [],
  ) {
    // Tools print the cause first and pages of help after it (npm does): show both ends.
    const errors = firstErrors.length ? `\n--- first error lines ---\n${firstErrors.join('\n')}` : '';
    super(
      `Building image ${tag} failed: ${reason}${errors}\n--- last lines of the build log ---\n${logTail.join('\n')}`,
    );
    this.name = 'ImageBuildError';
  }
}

/** On every base image Rightsize builds: the exact Node.js version in it (an image built FROM one inherits it). */
export const NODE_VERSION_LABEL = 'io.rightsize.node-version';

export type BuildLog = (line: string) => void;

/** A build stopped because its run (or the process) was cancelled. */
export class BuildCancelledError extends Error {
  readonly code = 'BUILD_CANCELLED';
  constructor(tag: string) {
    super(`Building image ${tag} was cancelled`);
    this.name = 'BuildCancelledError';
  }
}

// The cancel signal of whatever is building (a run, an Apps-screen build). Carried by async context so
// the image helpers between a run and buildImage (base, app, folder images) need not pass it along.
const buildSignal = new AsyncLocalStorage<AbortSignal>();

/** Runs `fn` so that every image build it starts stops when `signal` aborts. */
export function withBuildSignal<T>(signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
  return signal ? buildSignal.run(signal, fn) : fn();
}

export async function imageExists(tag: string): Promise<boolean> {
  try {
    await docker().getImage(tag).inspect();
    return true;
  } catch (e) {
    if ((e as { statusCode?: number }).statusCode === 404) return false;
    throw e;
  }
}

interface BuildEvent {
  stream?: string;
  status?: string;
  error?: string;
  errorDetail?: { message?: string };
}

/**
 * Builds `ctx` into `tag`. Intermediate containers are always removed (forcerm) and the tag only
 * exists once the build succeeded, so a failed build leaves nothing half-made.
 */
export async function buildImage(
  ctx: BuildContext,
  tag: string,
  opts: {
    buildargs?: Record<string, string>;
    kind: string;
    onLog?: BuildLog;
    labels?: Record<string, string>;
    /** A Dockerfile other than the context's ./Dockerfile, and the stage to build (a user's own build). */
    dockerfile?: string;
    target?: string;
  },
): Promise<void> {
  const log: string[] = [];
  const errors: string[] = [];
  const push = (text: string): void => {
    // eslint-disable-next-line no-control-regex -- build output carries terminal colour codes (npm's stderr)
    for (const line of text.replace(/\x1b\[[0-9;]*m/g, '').split('\n')) {
      if (!line.trim()) continue;
      log.push(line);
      if (log.length > 200) log.shift();
      if (errors.length < 8 && /\b(err(or)?|ERR!)\b/i.test(line)) errors.push(line);
      opts.onLog?.(line);
    }
  };
  const signal = buildSignal.getStore();
  if (signal?.aborted) throw new BuildCancelledError(tag);
  // Closing the request makes dockerd cancel the build and remove its intermediate container; the
  // same happens when this process dies mid-build, since the connection drops with it.
  const stream = await docker()
    .buildImage(ctx.pack(), {
      t: tag,
      forcerm: true,
      buildargs: opts.buildargs,
      ...(opts.dockerfile ? { dockerfile: opts.dockerfile } : {}),
      ...(opts.target ? { target: opts.target } : {}),
      labels: { ...opts.labels, ...ownLabels(), [LABEL.kind]: opts.kind },
      ...(signal ? { abortSignal: signal } : {}),
    })
    .catch((e: Error) => {
      throw signal?.aborted ? new BuildCancelledError(tag) : e;
    });
  await new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      (stream as { destroy?: () => void }).destroy?.();
      reject(new BuildCancelledError(tag));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    docker().modem.followProgress(
      stream,
      (err: Error | null, events: BuildEvent[]) => {
        signal?.removeEventListener('abort', onAbort);
        if (signal?.aborted) return reject(new BuildCancelledError(tag));
        const failed = err?.message ?? events.find((e) => e.error)?.error;
        if (failed) reject(new ImageBuildError(tag, log.slice(-20), failed, errors));
        else resolve();
      },
      (e: BuildEvent) => {
        if (e.stream) push(e.stream);
        else if (e.status) push(e.status);
        if (e.error) push(`ERROR: ${e.errorDetail?.message ?? e.error}`);
      },
    );
  });
  if (!(await imageExists(tag)))
    throw new ImageBuildError(tag, log.slice(-20), 'the engine reported success but the image is missing');
}
