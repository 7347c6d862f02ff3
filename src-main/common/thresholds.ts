// Every threshold that more than one part of Rightsize reads, once. A rule that moves here moves for
// the engine, the answer, the reports and the UI together.

/** Below this share of the target rate, a constant-rate cell did not get the load it asked for. */
export const RATE_SHORTFALL = 0.95;

/** Above this event-loop utilisation a load thread, not the server, sets the pace. */
export const CLIENT_BOUND_ELU = 0.9;

/**
 * Seconds a cell costs beyond warmup + duration (container start, readiness, teardown), used for
 * an ETA before any cell of the run has been timed. Measured on the CI machine: 1–2 s per cell.
 */
export const CELL_OVERHEAD_SEC = 1.5;
