// Which integration files may share the machine. Every file of tests/integration is in exactly one
// lane (tests/unit/test-lanes.test.ts checks it, so a new file must choose). Both lanes run one file
// at a time, as cells compete for the same two cores:
//  - ALONE: has the Docker engine to itself, but its proofs do not care about a busy host (removals,
//    signals, locks, caps' upper bounds, words, loose floors such as "over 100 req/s"), so npm test
//    runs the steps and suites that use no Docker beside it;
//  - QUIET: its numbers need the machine to themselves (rates, latencies, the probe's loop
//    utilisation, decided answers), so it runs after them, with nothing beside it.
// Two files of the quiet lane at once, each run queuing for the lab lock, saved 58 s of 503 but
// needed every check to tell one file's containers from the other's: not done (docs/contributing.md).

export const ALONE = [
  'build-cancel',
  'containers',
  'distributed',
  'dry-run-refusal',
  'kill',
  'lab-lock',
  'lab-order',
  'load-agent',
  'reaper-name',
  'remote-docker',
  'targets',
  'user-apps',
] as const;

export const QUIET = [
  'answer',
  'app-try-out',
  'auto-size',
  'baseline',
  'bin-app',
  'budget-matrix',
  'cell-failure',
  'config-errors',
  'k8s-session',
  'load',
  'load-reconnect',
  'load-spread',
  'load-threads',
  'matrix-cli',
  'memory-peak',
  'node-versions',
  'one-answer',
  'probe',
  'probe-causes',
  'reaper-build',
  'replicas',
  'serve',
  'serve-fuzz',
  'steady-state',
  'verify',
] as const;

export const laneFiles = (names: readonly string[]): string[] => names.map((n) => `tests/integration/${n}.test.ts`);
