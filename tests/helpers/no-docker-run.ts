// What a run-loop test without Docker replaces, and only that (vi.mock factories for the three
// modules): the engine's facts are this machine's, the lab is entered without a lock container or
// reaper (this process's targets end with it), and the app's image is named, never built (the stub
// provider's targets run no image). The store, the run loop and the load stay the real ones. Each
// test file calls vi.mock itself (vi.mock is hoisted per file) with these factories.
import os from 'node:os';

type Client = typeof import('../../src-main/docker/client.ts');
type Images = typeof import('../../src-main/engine/run/images.ts');

export async function engineClient(importOriginal: () => Promise<Client>): Promise<Client> {
  return {
    ...(await importOriginal()),
    checkEngine: async () => ({
      version: 'stub',
      cgroupVersion: '2',
      cpus: os.cpus().length,
      memoryBytes: os.totalmem(),
      os: 'no engine (unit test)',
      bridgeRoutable: false,
    }),
  } as Client;
}

export const enterLab = () => ({
  enterLab: async () => ({
    base: { tag: 'rightsize/base:stub', strategy: 'official' },
    lease: {
      holder: { id: 'no-lock-container', session: 'unit', what: 'unit test', since: new Date().toISOString() },
      release: async () => {},
    },
  }),
});

export async function namedImages(importOriginal: () => Promise<Images>): Promise<Images> {
  const real = await importOriginal();
  const image = (app: string) => ({ tag: `rightsize/app-${app}:stub`, entry: `/srv/apps/${app}/server.js`, built: false });
  return {
    ...real,
    buildImages: async (apps: { name: string }[]) => ({
      images: new Map(apps.map((a) => [real.imageKey(a.name), image(a.name)])),
      imageFor: async (cell: { app: string }) => image(cell.app),
    }),
  } as unknown as Images;
}
