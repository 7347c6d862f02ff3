import { docker } from './client.ts';
import { LABEL, PRODUCT } from './labels.ts';
import type { BuildContext } from './build-context.ts';

export class ImageBuildError extends Error {
  readonly code = 'IMAGE_BUILD_FAILED';
  constructor(readonly tag: string, readonly logTail: string[], reason: string, firstErrors: string[] = []) {
    // Tools print the cause first and pages of help after it (npm does): show both ends.
    const errors = firstErrors.length ? `\n--- first error lines ---\n${firstErrors.join('\n')}` : '';
    super(`Building image ${tag} failed: ${reason}${errors}\n--- last lines of the build log ---\n${logTail.join('\n')}`);
    this.name = 'ImageBuildError';
  }
}

export type BuildLog = (line: string) => void;

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
  opts: { buildargs?: Record<string, string>; kind: string; onLog?: BuildLog },
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
  const stream = await docker().buildImage(ctx.pack(), {
    t: tag,
    forcerm: true,
    buildargs: opts.buildargs,
    labels: { [LABEL.product]: PRODUCT, [LABEL.kind]: opts.kind },
  });
  await new Promise<void>((resolve, reject) => {
    docker().modem.followProgress(
      stream,
      (err: Error | null, events: BuildEvent[]) => {
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
  if (!(await imageExists(tag))) throw new ImageBuildError(tag, log.slice(-20), 'the engine reported success but the image is missing');
}
