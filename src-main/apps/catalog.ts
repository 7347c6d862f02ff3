import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { appsDir } from '../util/paths.ts';
import { AppManifestSchema, type AppManifest } from './manifest.ts';

export interface AppDefinition extends AppManifest {
  /** Folder holding the app's files on this machine. */
  dir: string;
  builtIn: boolean;
}

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
  const parsed = AppManifestSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) {
    throw new Error(`${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return { ...parsed.data, dir, builtIn: true };
}

export function findApp(name: string, apps: AppDefinition[] = builtInApps()): AppDefinition | undefined {
  return apps.find((a) => a.name === name);
}
