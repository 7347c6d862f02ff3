import { fixedWorkers } from './catalog.ts';
import type { AppManifest } from './manifest.ts';
import type { UserApp } from './user-apps.ts';

/** An app as the UI and the CLI list it. */
export interface AppInfo extends Omit<AppManifest, 'entry' | 'version'> {
  builtIn: boolean;
  kind: 'builtin' | 'folder' | 'image';
  /** An image app without a worker-count variable: the workers dimension does not apply. */
  fixedWorkers: boolean;
  user?: UserApp;
}

/** A user's app as the Apps screen and `rightsize apps` list it. */
export function userAppInfo(a: UserApp): AppInfo {
  const where = a.source.kind === 'folder' ? a.source.dir : a.source.image;
  return {
    name: a.name,
    description: a.description || (a.source.kind === 'folder' ? `your project at ${where}` : `the image ${where}`),
    stresses: a.source.kind === 'folder' ? `your project (${where})` : `your image (${where})`,
    port: a.port,
    health: a.health,
    requests: a.requests,
    env: a.env,
    builtIn: false,
    kind: a.source.kind,
    fixedWorkers: fixedWorkers(a),
    user: a,
  };
}
