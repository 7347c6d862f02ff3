import { docker } from './client.ts';
import { firstLine, pull } from './base-image.ts';
import type { BuildLog } from './image-build.ts';

/** An image's id when it is on this machine or could be pulled; else why not, in one line. */
export async function findImage(image: string, onLog?: BuildLog): Promise<{ id: string } | { reason: string }> {
  const inspect = async (): Promise<{ id: string } | { reason: string } | undefined> => {
    try {
      return { id: (await docker().getImage(image).inspect()).Id };
    } catch (e) {
      if ((e as { statusCode?: number }).statusCode === 404) return undefined;
      return { reason: `Docker is not reachable: ${(e as Error).message.split('\n')[0]}` };
    }
  };
  const local = await inspect();
  if (local) return local;
  try {
    await pull(image, 60_000, onLog);
  } catch (e) {
    return { reason: firstLine(e) };
  }
  // One look after the pull: it both confirms the image is there and gives its id.
  return (await inspect()) ?? { reason: 'pull ended without the image' };
}
