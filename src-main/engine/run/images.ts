// The images a run's cells need: one per app on the default base, and one per (app, Node.js version)
// for cells that name a version (CellConfig.node). All made before any cell runs, so an unknown
// version, an unreachable registry or a bad download stops the run before it measures anything.
import type { AppDefinition } from '../../apps/catalog.ts';
import { ensureAppImage, type AppImage } from '../../docker/app-image.ts';
import type { BaseImage, BaseStrategy } from '../../docker/base-image.ts';
import { ensureNodeBase } from '../../docker/node-base.ts';
import { nodeChoiceProblems } from '../../docker/node-flags.ts';
import type { CellConfig } from '../../model/types.ts';

/** An image a source's cells need: an app, on the default base (no node) or on a named Node.js version. */
export interface ImageNeed {
  app: string;
  node?: string;
}

/** The key of a cell's image in a run's image map. */
export const imageKey = (app: string, node?: string): string => (node ? `${app}\0node ${node}` : app);

/** What a run's cells need, from the cells themselves: each (app, node) once, in order. */
export function imageNeeds(cells: Pick<CellConfig, 'app' | 'node'>[]): ImageNeed[] {
  const seen = new Map<string, ImageNeed>();
  for (const c of cells)
    if (!seen.has(imageKey(c.app, c.node)))
      seen.set(imageKey(c.app, c.node), { app: c.app, ...(c.node ? { node: c.node } : {}) });
  return [...seen.values()];
}

export interface RunImages {
  /** The image of each need, by imageKey. */
  images: Map<string, AppImage>;
  /** A cell's image: made now when no need named it (a phase's cell of an unforeseen version). */
  imageFor(cell: Pick<CellConfig, 'app' | 'node'>): Promise<AppImage>;
}

/**
 * Builds the image of every need (absent: every app on the default base, as before versions
 * could be named). A named version's base is made once per run, whatever the number of apps on it.
 */
export async function buildImages(
  apps: AppDefinition[],
  base: BaseImage,
  onLog: (line: string) => void,
  o: { needs?: ImageNeed[]; strategy?: BaseStrategy } = {},
): Promise<RunImages> {
  const images = new Map<string, AppImage>();
  const bases = new Map<string, Promise<BaseImage>>();
  const baseOf = (node: string | undefined): Promise<BaseImage> => {
    if (!node) return Promise.resolve(base);
    let b = bases.get(node);
    if (!b) {
      b = ensureNodeBase(node, { onLog, ...(o.strategy ? { strategy: o.strategy } : {}) });
      bases.set(node, b);
    }
    return b;
  };
  const make = async (need: ImageNeed): Promise<AppImage> => {
    const app = apps.find((a) => a.name === need.app);
    if (!app) throw new Error(`No app named ${need.app} in this run`);
    const problems = nodeChoiceProblems(app, need.node, undefined);
    if (problems.length) throw new Error(problems.join('; '));
    const image = await ensureAppImage(app, () => baseOf(need.node), onLog);
    images.set(imageKey(need.app, need.node), image);
    return image;
  };
  // Every image app's problem before any version is downloaded: nothing is built for a run that cannot start.
  const needs: ImageNeed[] = o.needs ?? apps.map((a) => ({ app: a.name }));
  for (const need of needs) {
    const app = apps.find((a) => a.name === need.app);
    const problems = app ? nodeChoiceProblems(app, need.node, undefined) : [];
    if (problems.length) throw new Error(problems.join('; '));
  }
  for (const need of needs) await make(need);
  return {
    images,
    imageFor: async (cell) =>
      images.get(imageKey(cell.app, cell.node)) ??
      make(cell.node ? { app: cell.app, node: cell.node } : { app: cell.app }),
  };
}
