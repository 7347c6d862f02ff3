import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { appsDir } from '../util/paths.ts';
import { AppManifestSchema, type AppManifest } from './manifest.ts';

/**
 * Where an app comes from, resolved: a built-in app, a user's project folder (entry, arguments and
 * perhaps the PM2 ecosystem file they were read from), a folder built with its own Dockerfile, or an
 * existing image; the last two run the image's own command.
 */
export type AppSource =
  | { kind: 'builtin' }
  | {
      kind: 'folder';
      args: string[];
      /** Working directory relative to the folder ('' = the folder). */ cwd: string;
      /** `instances`: kept where the file sizes it from the host's CPUs ("max", 0, -1), for the answer to name. */
      ecosystem?: { file: string; app: string; instances?: string };
    }
  | { kind: 'image'; image: string; imageId: string; workersEnv: string | null }
  | {
      kind: 'dockerfile';
      dockerfile: string;
      buildArgs: Record<string, string>;
      target?: string;
      command?: string[];
      workersEnv: string | null;
    };

/** The app runs its image's own command (an image as it is, or one built with the team's Dockerfile). */
export const ownCommand = (source: { kind: string }): source is Extract<AppSource, { kind: 'image' | 'dockerfile' }> =>
  source.kind === 'image' || source.kind === 'dockerfile';

export interface AppDefinition extends AppManifest {
  /** Folder holding the app's files on this machine ('' for an image app). */
  dir: string;
  builtIn: boolean;
  source: AppSource;
}

/** An image app with no worker-count variable runs one configuration: the workers dimension does not apply. */
export const fixedWorkers = (app: { source: { kind: string; workersEnv?: string | null } }): boolean =>
  ownCommand(app.source) && app.source.workersEnv === null;

let builtIns: AppDefinition[] | undefined;

/**
 * The built-in apps under apps/ (folders starting with _ hold shared code, not apps). Read once
 * per process: they ship with Rightsize, and the UI validates a matrix on every edit.
 */
export function builtInApps(): AppDefinition[] {
  builtIns ??= readBuiltInApps();
  return builtIns;
}

function readBuiltInApps(): AppDefinition[] {
  const root = appsDir();
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('_') && existsSync(path.join(root, d.name, 'manifest.json')))
    .map((d) => loadManifest(path.join(root, d.name)))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export function loadManifest(dir: string): AppDefinition {
  const file = path.join(dir, 'manifest.json');
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { dependencies?: { mounts?: { source: string }[] }[] };
  // A dependency's files are named from the app's folder: mounted from where the app is installed.
  for (const d of raw.dependencies ?? []) for (const m of d.mounts ?? []) m.source = path.resolve(dir, m.source);
  const parsed = AppManifestSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return { ...parsed.data, dir, builtIn: true, source: { kind: 'builtin' } };
}

export function findApp(name: string, apps: AppDefinition[] = builtInApps()): AppDefinition | undefined {
  return apps.find((a) => a.name === name);
}
