import type { AppInfo } from '../contract/api.ts';
import { fixedWorkers } from './catalog.ts';
import type { UserApp } from './user-apps.ts';

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
