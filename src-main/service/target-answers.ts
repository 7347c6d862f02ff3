// What a saved target says about itself when the Builder asks: one question (its connection check,
// its concurrency) asked at most once per ANSWER_TTL_MS per target and connection, and waited on at
// most ANSWER_WAIT_MS from the ask, so a dead target never holds a validation. A later validation
// while the answer is still out does not wait again. Only questions: nothing on the target changes.
import type { Provider } from '../providers/provider.ts';

/** How long an answer is kept, and how long a validation waits for one. */
export const ANSWER_TTL_MS = 30_000;
export const ANSWER_WAIT_MS = 2_000;

/** An answer and when it came (ms since the epoch). */
export interface Answer<T> {
  value: T;
  at: number;
}

/** What is known when a validation cannot wait longer. */
export interface Asked<T> {
  /** The current ask's answer, else the last one from the same connection; absent: none ever came. */
  answer?: Answer<T>;
  /** Whether `answer` is the current ask's (false: older than the TTL, the new ask not answered yet). */
  fresh: boolean;
  /** Why the current ask failed, in words; absent while it is out or when it answered. */
  error?: string;
}

interface Ask<T> {
  provider: Provider;
  askedAt: number;
  settled: boolean;
  answer?: Answer<T>;
  /** The previous ask's answer (same connection), kept for when this one does not come. */
  last?: Answer<T>;
  error?: string;
  done: Promise<void>;
}

/** One question to every saved target, answers by target name. */
export class TargetQuestion<T> {
  private readonly asks = new Map<string, Ask<T>>();

  constructor(
    /** The question; a throw is "no answer", its message the reason. */
    private readonly question: (p: Provider) => Promise<T>,
    private readonly ttlMs = ANSWER_TTL_MS,
    private readonly waitMs = ANSWER_WAIT_MS,
  ) {}

  /** Asks (per name and provider, so changed settings ask again), waiting at most `waitMs` from the ask. */
  async get(name: string, provider: Provider): Promise<Asked<T>> {
    let a = this.asks.get(name);
    if (!a || a.provider !== provider || Date.now() - a.askedAt > this.ttlMs) {
      const last = a?.provider === provider ? (a.answer ?? a.last) : undefined;
      a = this.ask(provider, last);
      this.asks.set(name, a);
    }
    const wait = a.askedAt + this.waitMs - Date.now();
    if (!a.settled && wait > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([a.done, new Promise<void>((resolve) => (timer = setTimeout(resolve, wait)))]);
      clearTimeout(timer);
    }
    const answer = a.answer ?? a.last;
    return { ...(answer ? { answer } : {}), fresh: a.answer !== undefined, ...(a.error ? { error: a.error } : {}) };
  }

  private ask(provider: Provider, last: Answer<T> | undefined): Ask<T> {
    const a: Ask<T> = {
      provider,
      askedAt: Date.now(),
      settled: false,
      ...(last ? { last } : {}),
      done: Promise.resolve(),
    };
    a.done = Promise.resolve()
      .then(() => this.question(provider))
      .then(
        (value) => void (a.answer = { value, at: Date.now() }),
        (e: unknown) => void (a.error = e instanceof Error ? e.message : String(e)),
      )
      .finally(() => void (a.settled = true));
    return a;
  }
}
