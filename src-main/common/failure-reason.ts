// Why the server failed a request, in its own words: the status and the message of an unexpected
// response's body ("503 sorry, too many clients already"). Kept per second as counts of a few
// distinct reasons, so a cell says what failed without storing bodies.

/** Distinct reasons kept per cell; the rest are counted under OTHER. */
export const MAX_REASONS = 5;
export const OTHER = 'other';
const MAX_CHARS = 120;

/** What a body says: a JSON error's `error` / `message` / `detail` (or their `.message`), else its first line. */
function messageOf(body: string): string {
  const text = body.trim();
  if (text.startsWith('{')) {
    try {
      const j = JSON.parse(text) as Record<string, unknown>;
      for (const k of ['error', 'message', 'detail', 'reason']) {
        const v = j[k];
        if (typeof v === 'string' && v) return v;
        const inner = (v as { message?: unknown } | null)?.message;
        if (typeof inner === 'string' && inner) return inner;
      }
    } catch {
      // not JSON after all: the text as it is
    }
  }
  // An HTML error page says nothing a line can hold.
  return /^<(!doctype|html)/i.test(text) ? '' : (text.split(/\r?\n/)[0] ?? '');
}

/** "503 sorry, too many clients already"; just "503" when the body says nothing readable. */
export function failureReason(status: number, body: string | undefined): string {
  const m = messageOf(body ?? '').replace(/\s+/g, ' ');
  const short = m.length > MAX_CHARS ? `${m.slice(0, MAX_CHARS - 1)}…` : m;
  return short ? `${status} ${short}` : String(status);
}

/** Adds `n` of `reason` to `into`, keeping at most MAX_REASONS distinct ones (the rest under OTHER). */
export function addReason(into: Record<string, number>, reason: string, n = 1): void {
  const kept = Object.keys(into).filter((k) => k !== OTHER).length;
  const key = reason in into || kept < MAX_REASONS ? reason : OTHER;
  into[key] = (into[key] ?? 0) + n;
}

/** The reasons, most frequent first, at most MAX_REASONS plus OTHER. */
export function topReasons(all: Record<string, number>): [string, number][] {
  return Object.entries(all).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** Several cells' reasons added together (the cells of one configuration). */
export function mergeReasons(all: readonly (Record<string, number> | undefined)[]): Record<string, number> {
  const into: Record<string, number> = {};
  for (const r of all) for (const [k, v] of Object.entries(r ?? {})) addReason(into, k, v);
  return into;
}

/** `: 503 "sorry, too many clients already" (1,234), 500 (3)`, the two most frequent; '' with none recorded. */
export function reasonsText(all: Record<string, number>): string {
  const top = topReasons(all).filter(([k]) => k !== OTHER);
  if (!top.length) return '';
  const one = ([k, n]: [string, number]): string => {
    const [status, ...rest] = k.split(' ');
    return `${status}${rest.length ? ` "${rest.join(' ')}"` : ''} (${n.toLocaleString('en-US')})`;
  };
  return `: ${top.slice(0, 2).map(one).join(', ')}`;
}
