// Which integration files may share the machine. Every file of tests/integration is in exactly one
// lane (tests/unit/test-lanes.test.ts checks it, so a new file must choose). Each lane runs one file
// at a time:
//  - SHARED_A and SHARED_B: their proofs do not care about a busy host (removals, signals, caps' upper
//    bounds, words, loose floors such as "over 100 req/s"), nor about another Rightsize job on the
//    engine: npm test runs the two lanes at once, beside the steps and suites that use no Docker. Each
//    lane labels what it makes (RIGHTSIZE_LABELS) and checks only its own (helpers/lane-scope.ts);
//    their runs queue for the lab (RIGHTSIZE_WAIT_FOR_LAB=1). The files that use the second engine
//    (a fixed network namespace) are all in B, whose runs there do not take the main engine's lab;
//    A has kill's 20 runs that do, so the lanes seldom wait on each other; B also builds the offline
//    PostgreSQL and Redis images for the dependency tests, about 80 s beside the other lane (docs/contributing.md).
//  - QUIET: its numbers need the machine to themselves (rates, latencies, the probe's loop
//    utilisation, decided answers, time bounds), or it needs the lab to itself (the lab lock's own
//    tests), or it starves the machine on purpose (jit-floor-starved's weighted busy loop); it runs
//    after them, with nothing beside it.

export const SHARED_A = [
  'answer',
  'bin-app',
  'budget-matrix',
  'build-cancel',
  'cell-failure',
  'config-errors',
  'containers',
  'jit-floor',
  'k8s-session',
  'kill',
  'matrix-cli',
  'mix',
  'network',
  'node-versions',
  'reaper-name',
] as const;

export const SHARED_B = [
  'container-traps',
  'dependencies',
  'distributed',
  'engine-guard',
  'load-agent',
  'memory-peak',
  'remote-docker',
  'targets',
  'user-apps',
  'user-tls',
  'user-h2',
] as const;

export const QUIET = [
  'app-try-out',
  'auto-size',
  'baseline',
  'cpu-caps',
  'dependency-bound',
  'dry-run-refusal',
  'http2-load',
  'jit-floor-starved',
  'lab-lock',
  'lab-order',
  'load',
  'load-reconnect',
  'load-spread',
  'load-threads',
  'one-answer',
  'probe',
  'probe-causes',
  'probe-process',
  'reaper-build',
  'replicas',
  'serve',
  'serve-fuzz',
  'steady-state',
  'verify',
  'warmup-noise',
] as const;

export const laneFiles = (names: readonly string[]): string[] => names.map((n) => `tests/integration/${n}.test.ts`);
