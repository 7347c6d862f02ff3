// Every HTTPS and HTTP/2 cell's target is started with the run's certificate and its HTTP version, the first cell
// too: a cell whose target was not prepared ahead (the first, or one after a failed cell) once started without the
// certificate and failed ("none was made"). The real run loop and store against a stub provider (as in
// sequential-run.test.ts); only the engine check, the lab's lock and the image build are replaced.
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runMatrix } from '../../src-main/engine/run-matrix.ts';
import { Store } from '../../src-main/store/index.ts';
import { tempDir } from '../helpers/cli.ts';
import { twoCellMatrix } from '../helpers/docker.ts';
import { StubProvider } from '../helpers/stub-provider.ts';

vi.mock('../../src-main/docker/client.ts', async (importOriginal) =>
  (await import('../helpers/no-docker-run.ts')).engineClient(importOriginal as never),
);
vi.mock('../../src-main/lab-lock/enter-lab.ts', async () => (await import('../helpers/no-docker-run.ts')).enterLab());
vi.mock('../../src-main/engine/run/images.ts', async (importOriginal) =>
  (await import('../helpers/no-docker-run.ts')).namedImages(importOriginal as never),
);

/** The stub serves plain HTTP only, so these cells' loads fail; what is checked is what each target was given. */
class LinkStub extends StubProvider {
  readonly servesTls = true;
}

describe("an HTTPS or HTTP/2 cell's target", () => {
  it('the first cell and every other get the run\'s certificate and their HTTP version; a plain cell gets neither', async () => {
    const store = Store.open(path.join(tempDir(), 'h.db'));
    const provider = new LinkStub();
    try {
      const matrix = twoCellMatrix({ name: 'links', workers: [1], protocol: ['http1', 'h2', 'h2c'], tls: [true, false], durationSec: 1 });
      const outcome = await runMatrix(matrix, { store, provider });
      const given = provider.targets.map((t) => [t.spec.tls ?? false, t.spec.protocol ?? 'http1', Boolean(t.spec.env.RS_TLS_CERT), t.spec.env.RS_PROTOCOL ?? '']);
      expect(given).toEqual([
        [true, 'http1', true, ''],
        [false, 'http1', false, ''],
        [true, 'h2', true, 'h2'],
        [false, 'h2c', false, 'h2c'],
      ]);
      const failures = store.getRun(outcome.runId)!.cells.map((c) => c.failure ?? '');
      expect(failures.join('\n')).not.toMatch(/certificate/);
    } finally {
      await provider.close();
      store.close();
    }
  });
});
