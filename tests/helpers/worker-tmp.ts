// Setup file of the suites that run several files at once (unit, components): each worker gets a
// temporary folder of its own inside the run's, so a test that checks it left nothing in the
// temporary folder never sees a file another worker is using at that moment.
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const base = process.env.RIGHTSIZE_RUN_TMPDIR ?? os.tmpdir();
process.env.RIGHTSIZE_RUN_TMPDIR = base;
const own = path.join(base, `worker-${process.env.VITEST_POOL_ID ?? process.pid}`);
mkdirSync(own, { recursive: true });
process.env.TMPDIR = own;
