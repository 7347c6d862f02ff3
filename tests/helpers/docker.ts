import { builtInApps, findApp, type AppDefinition } from '../../src-main/apps/catalog.ts';
import { ensureAppImage, type AppImage } from '../../src-main/docker/app-image.ts';
import { ensureBaseImage, type BaseImage } from '../../src-main/docker/base-image.ts';
import { checkEngine, type EngineInfo } from '../../src-main/docker/client.ts';

/**
 * Integration tests need a real engine. Without one they fail with the reason: a sizing tool whose
 * Docker tests pass by skipping has proved nothing.
 */
export async function requireDocker(): Promise<EngineInfo> {
  try {
    return await checkEngine();
  } catch (e) {
    throw new Error(`These tests need a running Docker engine: ${(e as Error).message}`);
  }
}

let base: Promise<BaseImage> | undefined;
const images = new Map<string, Promise<AppImage>>();

/** Base + app image, built once per test process. */
export function imageFor(name: string): Promise<{ app: AppDefinition; image: AppImage }> {
  const app = findApp(name);
  if (!app) throw new Error(`no app ${name}; known: ${builtInApps().map((a) => a.name).join(', ')}`);
  base ??= ensureBaseImage();
  if (!images.has(name)) images.set(name, ensureAppImage(app, () => base!));
  return images.get(name)!.then((image) => ({ app, image }));
}
