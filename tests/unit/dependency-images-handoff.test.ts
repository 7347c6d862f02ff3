// npm test builds the offline images once as the shared lanes start, and the dependency tests wait for its file
// (tests/helpers/dependency-images.ts): they take its tags and log, fail with its reason, or fail on time, and never
// read half a file. No engine is involved: the file is written here.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dependencyImages } from '../helpers/dependency-images.ts';
import { tempDir } from '../helpers/cli.ts';

const built = { PG_IMAGE: 'rightsize/postgres-offline:15-x', REDIS_IMAGE: 'rightsize/redis-offline:7-y', log: ['mmdebstrap --variant=minbase bookworm'] };

describe('the offline images npm test built', () => {
  it('are what its file says, once the file is there', async () => {
    const file = path.join(tempDir(), 'images.json');
    const waiting = dependencyImages(file, 60_000);
    let settled = false;
    void waiting.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(settled).toBe(false); // no file yet: still waiting
    writeFileSync(file, JSON.stringify(built));
    expect(await waiting).toEqual(built);
  });

  it('fail with its build\'s reason', async () => {
    const file = path.join(tempDir(), 'images.json');
    writeFileSync(file, JSON.stringify({ error: 'mmdebstrap: no mirror answered' }));
    await expect(dependencyImages(file)).rejects.toThrow("npm test's build of the offline images failed: mmdebstrap: no mirror answered");
  });

  it('fail on time when the build never ends', async () => {
    await expect(dependencyImages(path.join(tempDir(), 'never.json'), 0)).rejects.toThrow(/did not end within 0 s/);
  });
});
