import { svelte } from '@sveltejs/vite-plugin-svelte';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { laneFiles, QUIET, SHARED_A, SHARED_B } from './tests/helpers/lanes.ts';

// Suites: `unit` (no Docker; with `unit-mocks`, its files that replace a module), `components`
// (Svelte components in jsdom; chart.js gets a mocked canvas, as jsdom has none), `integration-*` (a
// real Docker engine, in two lanes: cells compete for the same two cores, so no two measurements
// may overlap; see tests/helpers/lanes.ts) and `runner` (scripts/test.mjs itself, run on the small fixture
// suites of tests/runner/fixtures, which no project here includes). Each removes what it made when
// it ends (tests/helpers/global-setup*.ts). A skip gives its reason: `ctx.skip(reason)` or
// `ctx.skip(condition, reason)`; the runner prints it, and fails a skip without one.
/** Files at once in the suites without Docker: RIGHTSIZE_UNIT_WORKERS overrides it. */
const UNIT_WORKERS = Number(process.env.RIGHTSIZE_UNIT_WORKERS ?? 2);
if (!Number.isInteger(UNIT_WORKERS) || UNIT_WORKERS < 1)
  throw new Error(`RIGHTSIZE_UNIT_WORKERS should be a whole number, 1 or more (got "${process.env.RIGHTSIZE_UNIT_WORKERS}")`);

/**
 * Unit files that replace a module (vi.mock, vi.doMock): a module another file already loaded in the
 * same worker cannot be replaced, so these run in the `unit-mocks` project, each file isolated.
 * Found by reading the files, so a new one cannot be forgotten.
 */
const UNIT_DIR = fileURLToPath(new URL('tests/unit/', import.meta.url));
const UNIT_MOCKS = readdirSync(UNIT_DIR, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.ts') && /\bvi\.(do)?[mM]ock\(/.test(readFileSync(UNIT_DIR + f, 'utf8')))
  .map((f) => `tests/unit/${f}`);

/** What the integration lanes share. */
const INTEGRATION = {
  environment: 'node' as const,
  testTimeout: 180_000,
  hookTimeout: 180_000,
  // it.concurrent inside a file (containers.test.ts starts containers three at a time).
  maxConcurrency: 3,
  globalSetup: ['tests/helpers/global-setup.ts'],
};

/** What the two unit projects share. */
const UNIT = {
  environment: 'node' as const,
  testTimeout: 30_000,
  // Vitest's default on 2 cores is one worker (cores − 1), which left a core idle half the time:
  // these files wait on child processes and sockets as much as they compute.
  maxWorkers: UNIT_WORKERS,
  setupFiles: ['tests/helpers/worker-tmp.ts'],
  globalSetup: ['tests/helpers/global-setup-tmp.ts'],
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...UNIT,
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          exclude: UNIT_MOCKS,
          // Files share a worker's loaded modules: importing the engine afresh for each file was half
          // of this suite's time (80 → 45 s). The files that replace a module (vi.mock) run apart.
          isolate: false,
        },
      },
      // Only when there are such files: a project with none would fail the suite for running no test.
      ...(UNIT_MOCKS.length === 0
        ? []
        : [
            {
              test: {
                ...UNIT,
                name: 'unit-mocks',
                include: UNIT_MOCKS,
                // Mostly real runs against stub servers that answer after a delay: they wait more than they
                // compute, so three at once (a group of its own: one group's projects share a worker count).
                maxWorkers: Math.max(UNIT_WORKERS, 3),
                sequence: { groupOrder: 3 },
              },
            },
          ]),
      {
        plugins: [svelte()],
        resolve: { conditions: ['browser'] },
        test: {
          name: 'components',
          include: ['tests/components/**/*.test.ts'],
          environment: 'jsdom',
          maxWorkers: UNIT_WORKERS,
          setupFiles: ['tests/helpers/worker-tmp.ts', 'tests/components/setup.ts'],
          globalSetup: ['tests/helpers/global-setup-tmp.ts'],
        },
      },
      // Three lanes (tests/helpers/lanes.ts), one file at a time each: npm test runs the two shared
      // lanes at once, beside the Docker-free suites, then `integration-quiet` with nothing beside it.
      // One vitest over all three runs them in turn.
      ...[
        ['integration-shared-a', SHARED_A],
        ['integration-shared-b', SHARED_B],
        ['integration-quiet', QUIET],
      ].map(([name, files], i) => ({
        test: {
          ...INTEGRATION,
          name: name as string,
          include: laneFiles(files as readonly string[]),
          fileParallelism: false,
          sequence: { groupOrder: i },
        },
      })),
      {
        test: {
          name: 'runner',
          include: ['tests/runner/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          maxConcurrency: 3, // each case is a runner process with a vitest or Playwright inside: 2 cores
          globalSetup: ['tests/helpers/global-setup-tmp.ts'],
        },
      },
    ],
  },
});
