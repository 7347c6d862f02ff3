// Every threshold a rule compares a measured number against, defined once, each with why it has its
// value. The measurements behind them are in BENCHMARKS.md (named by section), not here. A value that
// moves here moves for the engine, the answer, the reports and the UI together; words files import
// these and define none.

// ── The load: did the cell get it, and who set the pace ─────────────────────────────────────────

/**
 * Below this share of its target rate a constant-rate cell did not get the load it asked for. The 5 %
 * band is for pacing and per-second counting; a gap beyond it means one side held the load back.
 */
export const RATE_SHORTFALL = 0.95;

/**
 * At or above this event-loop utilisation a load thread, not the server, sets the pace: a thread at its
 * ceiling reads 0.91–0.93, never a full 1 (BENCHMARKS.md, Fidelity). The forecast before a run
 * (engine/client-forecast.ts) takes a predicted rate at this share of a thread's ceiling as that flag.
 */
export const CLIENT_BOUND_ELU = 0.9;

/**
 * A server's event loop busy this share of the time or more is saturated: with under 10 % idle, new
 * requests queue behind callbacks (a request's time in a queue grows as 1 ÷ (1 − utilisation): ×10 here).
 * Servers at their ceiling read 0.94–0.99 (BENCHMARKS.md, Runtime probe: the presets' cause lines).
 */
export const SATURATED_ELU = 0.9;

/**
 * A dependency (its database, its cache) using this share of its own CPU cap or more, on average over the
 * measured seconds, is at its limit: like a saturated event loop, under 10 % idle leaves requests queued on it.
 */
export const DEPENDENCY_SATURATED_PCT = 90;

/** A share of throttled enforcement periods is read over this many busy periods or more (a second of 100 ms ones). */
export const MIN_PERIODS_FOR_SHARE = 10;

/**
 * …while the app itself used less than this share of its CPU cap: the app had room to serve more, so the
 * dependency, not the app, set the pace. Both at their caps is the server's limit (the conservative reading).
 */
export const APP_HEADROOM_PCT = 80;

/**
 * A cell whose responses carried this share of its bandwidth cap (networkMbps) or more in its median second, as counted
 * on the load side (common/link-share.ts), was held by the network. The cap counts every byte of the frames (TCP/IP
 * and Ethernet headers too, about 4 % of a full one), the load side only what TCP delivered, so a link at its cap reads
 * a little under 100 %: BENCHMARKS.md, "The network as a resource".
 */
export const NETWORK_BOUND_SHARE = 0.85;

// ── Warm-up, steady state, contention: the cell's own flags ─────────────────────────────────────

/**
 * The last warm-up seconds count as flat when their range is within this share of their mean. At a
 * quiet host's per-second noise a steady cell seldom waits a second more, while a ramp of 6 %/s or a
 * step of 12 % keeps it warming (BENCHMARKS.md, Thresholds).
 */
export const WARM_SPREAD = 0.12;
/**
 * …or within this many √mean: a second's count is noisy by itself at low rates (about √count for
 * independent arrivals, ±22 % at 20 req/s), and a slow app would otherwise always warm up to the cap.
 */
export const WARM_COUNT_NOISE_Z = 3.5;
/**
 * …or within this many of the host's measured per-second noise (σ as a share of the level): the 95th percentile of
 * the range of three normal seconds. At a busy hour a steady cell would otherwise warm up to the cap on noise alone
 * (BENCHMARKS.md, "Warm-up at the hour's noise").
 */
export const WARM_RANGE_Q95 = 3.31;

/**
 * Smallest drift or step, as a share of the mean, that makes a cell `unstable`: a smaller one may be
 * real but cannot move an answer whose noise bound is itself ~10 % (CV between repetitions).
 */
export const UNSTABLE_CHANGE = 0.1;
/**
 * Significance of each of the two stability tests (trend, level shift): steady cells are flagged a few
 * % of the time at most even at 10 % CV (BENCHMARKS.md, Thresholds); the size bound does the rest.
 */
export const UNSTABLE_ALPHA = 0.025;

/**
 * Throttled for more than this share of the measured time (the 'throttled' flag): the CPU cap, not the
 * app, set the pace. A process within its cap is held off only in short bursts of its GC threads.
 */
export const THROTTLED_TIME_SHARE = 0.05;
/**
 * Throttled in at least this share of the CFS periods it ran in (the causes' measure, where periods were
 * counted): the cap held it back. A process within its cap is throttled in a few periods at most.
 */
export const THROTTLED_PERIOD_SHARE = 0.1;

/**
 * Other processes took more than this share (%) of the target's and the load's cores over the measured
 * seconds: the host, not the caps, may have set the pace ('host-busy'). Daemons take 0–3 % during a
 * normal cell, while a test run beside one took 15 % and halved its goodput (BENCHMARKS.md, Thresholds).
 */
export const HOST_BUSY_PCT = 10;
/**
 * …or at least this many measured seconds each above twice that share: a short stall a mean over the
 * cell hides. Two, because a single second can read high from tick sampling alone.
 */
export const HOST_BUSY_BURST_SEC = 2;

/**
 * A replica whose measured share of the responses is off the even share (1 ÷ replicas) by more than
 * this, relative to it, got an uneven share of the load: the cell is not the topology it names (one
 * replica slower, or connections lost to one). 10 %: 2 replicas at 45 / 55 %.
 */
export const UNEVEN_SHARE = 0.1;

// ── Deciding between configurations ─────────────────────────────────────────────────────────────

/**
 * Significance level of every test that makes a decision (family-wise, with Holm, where a best is
 * picked among many): the convention, so an answer's "shown" reads as a reader expects.
 */
export const ALPHA = 0.05;

/**
 * How far one configuration's goodput moved between back-to-back runs, (max − min) ÷ median: the
 * largest of the repeatability benchmark (BENCHMARKS.md, Repeatability of the answer). A single
 * repetition's interval cannot see it, so a change between single runs below it is not evidence.
 */
export const RUN_TO_RUN_SPREAD = 0.083;

/**
 * Above this coefficient of variation of req/s, repetitions disagree too much to trust small
 * differences: more than the run-to-run spread of an unchanged configuration (RUN_TO_RUN_SPREAD).
 */
export const NOISY_CV = 0.1;

/**
 * Above this share of failed requests (pooled over repetitions, in percent) a configuration is never
 * best or knee: goodput counts successes only, and one failing more than 1 in 100 is no answer to deploy.
 */
export const MAX_ERROR_PCT = 1;

/**
 * The host memory of a baseline and its run may differ this much and still be the same machine: VMs
 * of one size report slightly different totals.
 */
export const HOST_MEMORY_TOLERANCE = 0.1;

/**
 * Beyond this share of its cap taken by other processes, a busy host's goodput says too little to
 * bound: as fast as 1 ÷ (1 − share) times what was measured, a bound that grows without limit (10× at 0.9).
 */
export const BUSY_HOST_MAX_LOST_SHARE = 0.9;

/**
 * Goodput of a verification passes only if shown above this share of the matrix's estimate:
 * non-inferiority with a 5 % margin (one-sided Welch at ALPHA), the margin settling narrows the pick's
 * interval to before it is verified.
 */
export const VERIFY_GOODPUT_SHARE = 0.95;

// ── What the answer says beside its pick ────────────────────────────────────────────────────────

/** A p99 at most this share of the pick's is "much lower": a difference worth naming beside the pick. */
export const MUCH_LOWER_P99 = 0.5;

/** Throttled under this many ms a second (0.05 % of the time) is said as "not throttled": a stray period or two. */
export const NOT_THROTTLED_MS_PER_SEC = 0.5;

/**
 * The run-to-run spread at least this many times a single run's interval is said as "N times narrower
 * than the variation it cannot see"; below, the two read as about the same width.
 */
export const SPREAD_OVER_INTERVAL = 1.5;

// ── Causes: what the runtime probe shows (analysis/explain/causes-words.ts) ──────────────────────

/**
 * Per-worker ELU at most this share of the fewer-worker configuration's: each loop does less, so the
 * added worker split the same CPU rather than adding to it.
 */
export const OVERSUBSCRIBED_ELU_DROP = 0.8;
/** Involuntary context switches at least this many times the fewer-worker configuration's: the kernel preempts more. */
export const SWITCH_RISE = 1.5;
/**
 * The loops busy at least this many times the CPU time they got (RuntimeSummary.busyPerCpu): a third
 * of their busy time or more was waiting for the CPU. Over-subscribed loops keep their ELU up that way
 * and read 2× or more, one loop per CPU about 1× (BENCHMARKS.md, Runtime probe: the presets' cause lines).
 */
export const WAIT_RATIO = 1.5;
/** …and at least this many times the fewer-worker configuration's, so the added workers made them wait. */
export const WAIT_RISE = 1.3;
/** Throttled share of periods at least this much higher (absolute) than the fewer-worker configuration's. */
export const THROTTLE_RISE = 0.05;
/** The busiest event loop below this: the loops are mostly idle, so they are not what requests wait for. */
export const OFF_LOOP_ELU = 0.3;
/** p99 of the last third of the measured seconds at least this many times the first third's: latency grows. */
export const LATENCY_GROWTH = 1.5;
/** Measured seconds at least, so the first and the last third each hold two: fewer cannot show latency growing. */
export const LATENCY_GROWTH_MIN_SECONDS = 6;
/**
 * Request p99 at least this many times the event-loop delay p99: requests wait somewhere the loop does
 * not (where the probe's delay includes its sampling interval, the rule only gets stricter).
 */
export const OFF_LOOP_WAIT_RATIO = 5;
/** GC at least this share of the time is worth a line: below it, collection is not what the process spends on. */
export const GC_NOTABLE = 0.05;
/** …and at least this many times the larger cap's share, so the cap, not the workload, caused it. */
export const GC_RATIO = 2;
/** The busiest worker's ELU at least this many times the least busy's: the work is unevenly spread. */
export const IMBALANCE_RATIO = 2;
/** …and busy at least this much, so two nearly idle loops are never called uneven. */
export const IMBALANCE_MIN_ELU = 0.3;

// ── Not a threshold, but one number the engine, the service and the UI share ────────────────────

/**
 * Seconds a cell costs beyond its configured warmup + duration, for an ETA before any cell of the run
 * has been timed (after that, the run's own cells are): container start, readiness and teardown, and
 * the adaptive warmup's extra seconds over a short configured one (BENCHMARKS.md, Overhead per cell).
 */
export const CELL_OVERHEAD_SEC = 4;
