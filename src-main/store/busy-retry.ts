// SQLite answers SQLITE_BUSY at once, without calling the busy handler, when a connection switches a
// fresh file to WAL while another is doing the same (two CLIs started together on one history).
// The switch is quick, so waiting a little and trying again is the whole fix.

const RETRY_FOR_MS = 10_000;
const PAUSE_MS = 20;

const isBusy = (e: unknown): boolean => {
  const code = (e as { code?: unknown }).code;
  return code === 'SQLITE_BUSY' || (typeof code === 'string' && code.startsWith('SQLITE_BUSY_'));
};

/** Runs `fn`, trying again while SQLite reports the file busy, for up to ten seconds. */
export function retryWhileBusy<T>(fn: () => T, forMs = RETRY_FOR_MS): T {
  const until = Date.now() + forMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      return fn();
    } catch (e) {
      if (!isBusy(e) || Date.now() >= until) throw e;
      Atomics.wait(pause, 0, 0, PAUSE_MS); // synchronous, like every better-sqlite3 call
    }
  }
}
