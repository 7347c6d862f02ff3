// The offline PostgreSQL and Redis images the dependency tests run (src-main/docker/dependency-images.ts). npm test
// starts building them as the shared lanes start (scripts/test.mjs), so their Debian downloads are off lane B's
// path, and names the file it writes when done in RIGHTSIZE_TEST_IMAGES; a file run on its own builds them itself.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { ensureDependencyImage } from '../../src-main/docker/dependency-images.ts';

export interface DependencyImages {
  PG_IMAGE: string;
  REDIS_IMAGE: string;
  /** The build's log lines: where the Debian root was made, its command is among them. */
  log: string[];
}

/** Builds both where this engine lacks them: at once, since they share one Debian root and their downloads overlap. */
export async function buildDependencyImages(): Promise<DependencyImages> {
  const log: string[] = [];
  const onLog = (line: string): void => void log.push(line);
  const [PG_IMAGE, REDIS_IMAGE] = await Promise.all([ensureDependencyImage('postgres', onLog), ensureDependencyImage('redis', onLog)]);
  return { PG_IMAGE, REDIS_IMAGE, log };
}

/** npm test's side: builds them and writes the outcome to `file` whole (a reader never sees half of it). */
export async function prebuildDependencyImages(file: string): Promise<void> {
  let outcome: DependencyImages | { error: string };
  try {
    outcome = await buildDependencyImages();
  } catch (e) {
    outcome = { error: e instanceof Error ? e.message : String(e) };
  }
  writeFileSync(`${file}.part`, JSON.stringify(outcome));
  renameSync(`${file}.part`, file);
}

/** A test's side: the images npm test built (waiting for them), else built here. */
export async function dependencyImages(
  file = process.env.RIGHTSIZE_TEST_IMAGES,
  timeoutMs = 600_000,
): Promise<DependencyImages> {
  if (!file) return buildDependencyImages();
  const t0 = Date.now();
  while (!existsSync(file)) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`npm test's build of the offline images did not end within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const outcome = JSON.parse(readFileSync(file, 'utf8')) as DependencyImages | { error: string };
  if ('error' in outcome) throw new Error(`npm test's build of the offline images failed: ${outcome.error}`);
  return outcome;
}
