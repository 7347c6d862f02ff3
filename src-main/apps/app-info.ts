import { fixedWorkers } from './catalog.ts';
import type { AppManifest } from './manifest.ts';
import type { UserApp } from './user-apps.ts';

/** An app as the UI and the CLI list it. */
export interface AppInfo extends Omit<AppManifest, 'entry' | 'version'> {
  builtIn: boolean;
  kind: 'builtin' | 'folder' | 'image' | 'dockerfile';
  /** An image app without a worker-count variable: the workers dimension does not apply. */
  fixedWorkers: boolean;
  user?: UserApp;
}

/** A user's app as the Apps screen and `rightsize apps` list it. */
export function userAppInfo(a: UserApp): AppInfo {
  const where = a.source.kind === 'image' ? a.source.image : a.source.dir;
  const built = a.source.kind === 'dockerfile' ? `, built with its ${a.source.dockerfile}` : '';
  return {
    name: a.name,
    description:
      a.description || (a.source.kind === 'image' ? `the image ${where}` : `your project at ${where}${built}`),
    stresses: a.source.kind === 'image' ? `your image (${where})` : `your project (${where}${built})`,
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
