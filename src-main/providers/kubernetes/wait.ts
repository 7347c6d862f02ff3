// Bounded polling for the states a cluster reaches in its own time (pods ready, objects deleted).

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `done` every `everyMs` until it returns true or `timeoutMs` passes; resolves whether it finished. */
export async function until(done: () => Promise<boolean>, everyMs: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await done()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(everyMs);
  }
}
