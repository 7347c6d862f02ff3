// Every threshold that more than one part of Rightsize reads, once. A rule that moves here moves for
// the engine, the answer, the reports and the UI together.

/** Below this share of the target rate, a constant-rate cell did not get the load it asked for. */
export const RATE_SHORTFALL = 0.95;

/** Above this event-loop utilisation a load thread, not the server, sets the pace. */
export const CLIENT_BOUND_ELU = 0.9;

/**
 * Seconds a cell costs beyond its configured warmup + duration, used for an ETA before any cell of
 * the run has been timed (after that, the run's own cells are). Measured on the CI machine: container
 * start, readiness and teardown take 1–2 s, and the adaptive warmup adds 2–3 s to a configured 1–2 s
 * (the first seconds of a fresh container are always cold).
 */
export const CELL_OVERHEAD_SEC = 4;

/**
 * A replica whose measured share of the responses is off the even share (1 ÷ replicas) by more than
 * this, relative to it, got an uneven share of the load: the cell is not the topology it names (one
 * replica slower, or connections lost to one). 10 %: 2 replicas at 45 / 55 %. The engine's
 * 'uneven-share' flag and the answer's topology caveat read it.
 */
export const UNEVEN_SHARE = 0.1;
