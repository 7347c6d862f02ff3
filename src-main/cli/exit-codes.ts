/** Exit codes scripts can rely on (also listed in README). */
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
  /** Cancelled with Ctrl-C (128 + SIGINT). */
  cancelled: 130,
} as const;

/** An error the CLI turns into a message and an exit code, without a stack trace. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message);
  }
}
