import { checkEngine } from '../../docker/client.ts';
import {
  DEPENDENCY_IMAGES,
  ensureDependencyImage,
  offlineTag,
  type DependencyImage,
} from '../../docker/dependency-images.ts';
import { imageExists } from '../../docker/image-build.ts';
import { enterLab } from '../../lab-lock/enter-lab.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import type { GlobalOptions } from '../context.ts';

/**
 * `rightsize images build postgres|redis`: a dependency's image where no registry is reachable, from
 * Debian's packages, under the lab lock (a build takes CPU a measurement must not share). Prints the
 * tag to put in the Compose file or the app's definition.
 */
export async function imagesBuildCommand(names: string[], o: GlobalOptions & { wait?: boolean }): Promise<number> {
  const unknown = names.filter((n) => !(DEPENDENCY_IMAGES as readonly string[]).includes(n));
  if (!names.length || unknown.length)
    throw new CliError(
      `${unknown.length ? `Unknown image ${unknown.map((n) => `"${n}"`).join(', ')}. ` : ''}` +
        `Build one of: ${DEPENDENCY_IMAGES.join(', ')}.`,
      EXIT.usage,
    );
  const engine = await checkEngine();
  const wanted = names as DependencyImage[];
  const tags = Object.fromEntries(await Promise.all(wanted.map(async (n) => [n, await offlineTag(n)] as const)));
  const missing = (await Promise.all(wanted.map(async (n) => ((await imageExists(tags[n]!)) ? [] : [n])))).flat();
  if (missing.length) {
    const log = (line: string): void => void process.stderr.write(`  ${line}\n`);
    const { lease } = await enterLab(engine, { what: `a build of ${missing.join(', ')}`, wait: Boolean(o.wait) });
    try {
      for (const n of missing) await ensureDependencyImage(n, log);
    } finally {
      await lease.release();
    }
  }
  const out = wanted.map((n) => ({ name: n, tag: tags[n]!, built: missing.includes(n) }));
  process.stdout.write(
    o.json
      ? `${JSON.stringify(out, null, 2)}\n`
      : `${out.map((t) => `${t.name}: ${t.tag}${t.built ? ' (built)' : ' (already here)'}`).join('\n')}\n`,
  );
  return EXIT.ok;
}
