import type { Problem } from '../common/issues.ts';
import type { ImageApps } from '../model/types.ts';
import { builtInApps, fixedWorkers, ownCommand, type AppDefinition } from './catalog.ts';
import { resolveUserApp, UserAppSchema, type ResolveContext, type UserApp } from './user-apps.ts';

/** Every app a matrix can name: the built-in ones and the user's, as stored. */
export interface AppLibrary {
  builtIn: AppDefinition[];
  user: UserApp[];
}

/** Where the user's apps are kept (the store): only their stored definitions are read here. */
export interface UserAppRecords {
  listUserApps(): { definition: unknown }[];
}

export function appLibrary(store: UserAppRecords): AppLibrary {
  return {
    builtIn: builtInApps(),
    // Stored definitions were checked when saved; one that no longer parses (a newer Rightsize wrote it) is left out,
    // not fatal.
    user: store.listUserApps().flatMap((a) => {
      const parsed = UserAppSchema.safeParse(a.definition);
      return parsed.success ? [parsed.data] : [];
    }),
  };
}

export const appNames = (lib: AppLibrary): string[] => [
  ...lib.builtIn.map((a) => a.name),
  ...lib.user.map((a) => a.name),
];

/** The names of those `apps` that start dependencies beside each cell (a database, a cache). */
export const appsWithDependencies = (
  apps: readonly { name: string; dependencies?: readonly unknown[] }[],
): Set<string> => new Set(apps.filter((a) => (a.dependencies?.length ?? 0) > 0).map((a) => a.name));

/** The image apps among the user's, for matrix expansion (checked on every edit in the UI: no Docker, no disk). */
export function imageAppsOf(lib: AppLibrary): ImageApps {
  const out: ImageApps = {};
  for (const a of lib.user)
    if (ownCommand(a.source)) out[a.name] = { fixed: fixedWorkers(a), workersEnv: a.source.workersEnv };
  return out;
}

/**
 * The definitions of the named apps, ready to build and run. A user app is checked again here
 * (its folder, entry and ecosystem file may have changed since it was added): problems come back
 * per app, and nothing is started.
 */
export async function resolveApps(
  lib: AppLibrary,
  names: string[],
  findImage: ResolveContext['findImage'],
): Promise<{ ok: true; apps: AppDefinition[] } | { ok: false; problems: Problem[] }> {
  const apps: AppDefinition[] = [];
  const problems: Problem[] = [];
  for (const name of new Set(names)) {
    const builtIn = lib.builtIn.find((a) => a.name === name);
    if (builtIn) {
      apps.push(builtIn);
      continue;
    }
    const user = lib.user.find((a) => a.name === name);
    if (!user) {
      problems.push({ path: 'apps', message: `unknown app "${name}"` });
      continue;
    }
    const r = await resolveUserApp(user, { taken: [], findImage });
    if (r.ok) apps.push(r.definition);
    else problems.push(...r.problems.map((p) => ({ path: 'apps', message: `${name}: ${p.path}: ${p.message}` })));
  }
  return problems.length ? { ok: false, problems } : { ok: true, apps };
}
