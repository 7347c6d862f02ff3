type Falsy = null | undefined | false;

/**
 * Resolves with the first truthy value of `probe`; fails with `what` (a string, or a function read at the moment
 * it fails) after `timeoutMs`. Between probes it waits `every`: a number of ms, or a function resolving when it is
 * worth probing again (e.g. on a message or after a while, whichever comes first).
 */
export async function until<T>(
  probe: () => Promise<T | Falsy> | T | Falsy,
  what: string | (() => string),
  timeoutMs = 10_000,
  every: number | (() => Promise<unknown>) = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    }
    await (typeof every === 'number' ? new Promise((r) => setTimeout(r, every)) : every());
  }
}
