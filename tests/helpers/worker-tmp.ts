// Setup file of the suites that run several files at once (unit, components): each worker gets a
// temporary folder of its own inside the run's (RIGHTSIZE_TEST_TMP, made by the runner or the global
// setup), so a test that checks it left nothing in the temporary folder never sees a file another
// worker is using at that moment.
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const own = path.join(process.env.RIGHTSIZE_TEST_TMP ?? os.tmpdir(), `worker-${process.env.VITEST_POOL_ID ?? process.pid}`);
mkdirSync(own, { recursive: true });
process.env.TMPDIR = own;
