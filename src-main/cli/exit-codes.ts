/** Exit codes scripts can rely on (also listed in docs/cli.md and in `rightsize run --help`). */
export const EXIT = {
  ok: 0,
  /** Unexpected error (a bug, or an I/O failure). */
  error: 1,
  /** Bad command line, unreadable config or an invalid matrix: nothing was started. */
  usage: 2,
  /** The Docker engine could not be reached. */
  docker: 3,
  /** The run completed but some cells failed or were OOM-killed. */
  cellsFailed: 4,
  /** The run itself failed (e.g. an image would not build). */
  runFailed: 5,
  /**
   * Another Rightsize run or build holds the lab (this Docker engine); nothing was started. `--wait` queues instead.
   */
  labBusy: 6,
  /**
   * `targets check`, or `run --target`: the target answered badly or not at all (unreachable, TLS, permissions, no
   * nodes free); nothing was started.
   */
  targetNotReady: 7,
  /**
   * `verify`: a snippet did not pass when run exactly as emitted at any limit tried; it falls back to the matrix's
   * clean cap.
   */
  verifyFailed: 8,
  /**
   * `run --baseline`: the run finished and some configuration regressed against the baseline (shown worse by more than
   * the threshold). Not used when the runs are not comparable (another host, target or load settings): verdicts only.
   */
  regressed: 10,
  /** `run --slo`: the run finished, but no configuration met the objective (k6 uses 99 for failed thresholds too). */
  sloNotMet: 99,
  /** Cancelled with Ctrl-C, SIGTERM or SIGHUP (128 + SIGINT). */
  cancelled: 130,
} as const;

/** The exit codes in words, for `--help` (one place: docs/cli.md quotes the same list). */
export const EXIT_HELP = [
  `  ${EXIT.ok}    every cell ok (and, with --slo, some configuration meets the objective)`,
  `  ${EXIT.usage}    bad arguments or an invalid matrix: nothing started`,
  `  ${EXIT.docker}    Docker unreachable`,
  `  ${EXIT.cellsFailed}    the run completed with failed or OOM-killed cells`,
  `  ${EXIT.runFailed}    the run failed (e.g. an image would not build)`,
  `  ${EXIT.labBusy}    another Rightsize run or build holds this Docker engine (use --wait to queue)`,
  `  ${EXIT.targetNotReady}    --target is not ready (unreachable, TLS, permissions, no node free): nothing started`,
  `  ${EXIT.sloNotMet}   --slo given and no configuration meets it (checked before failed cells)`,
  `  ${EXIT.regressed}   --baseline given and something regressed (an unmet --slo takes precedence: ${EXIT.sloNotMet})`,
  `  ${EXIT.cancelled}  cancelled (Ctrl-C, SIGTERM, SIGHUP)`,
  `  ${EXIT.error}    unexpected error`,
].join('\n');

/** An error the CLI turns into a message and an exit code, without a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
