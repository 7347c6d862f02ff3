// The load agent's image carries only the packages of resources/base-image/load-agent-packages.json
// in its node_modules. A package the agent or its load threads import beyond those fails the agent
// at start on every remote engine, Swarm node and pod (ERR_MODULE_NOT_FOUND), and only an
// integration test with a second engine would see it: so the bundles' imports are checked here.
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const carried = JSON.parse(
  readFileSync(path.join(ROOT, 'resources/base-image/load-agent-packages.json'), 'utf8'),
) as string[];

/** The bare packages an entry point's bundle imports at run time (node built-ins left out). */
async function packagesImportedBy(entry: string): Promise<string[]> {
  const out = await build({
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    write: false,
    metafile: true,
    logLevel: 'silent',
    entryPoints: [path.join(ROOT, entry)],
    outdir: '/out',
  });
  const imports = Object.values(out.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external));
  const name = (p: string): string => (p.startsWith('@') ? p.split('/').slice(0, 2).join('/') : p.split('/')[0]!);
  const builtin = (p: string): boolean => p.startsWith('node:') || builtinModules.includes(name(p));
  return [...new Set(imports.map((i) => i.path).filter((p) => !builtin(p)).map(name))].sort();
}

describe('the load agent bundle', () => {
  it.each(['src-main/load-agent/agent.ts', 'src-main/load/worker.ts'])(
    '%s imports only the packages the agent image carries',
    async (entry) => {
      const extra = (await packagesImportedBy(entry)).filter((p) => !carried.includes(p));
      expect(extra, `imported by ${entry} but not in load-agent-packages.json`).toEqual([]);
    },
  );

  it('sees a package that is not carried (the check can fail)', async () => {
    expect(await packagesImportedBy('src-main/load/steady-state.ts')).toContain('@stdlib/stats-base-dists-t-cdf');
  });
});
