// Every container and image Rightsize makes carries these labels, so that the reaper of a session
// (src-main/reaper/) and the start-up sweep can always find what a dead session left behind.
export const LABEL = {
  product: 'io.rightsize.product',
  session: 'io.rightsize.session',
  run: 'io.rightsize.run',
  cell: 'io.rightsize.cell',
  app: 'io.rightsize.app',
  kind: 'io.rightsize.kind',
  inputs: 'io.rightsize.inputs',
  /** On the lab lock: what holds the lab, and since when (ISO time). */
  what: 'io.rightsize.what',
  since: 'io.rightsize.since',
} as const;

export const PRODUCT = 'rightsize';

const SCOPE_ENV = 'RIGHTSIZE_LABELS';
const SCOPE_KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;

/**
 * `RIGHTSIZE_LABELS="key=value,…"` read as labels, or a message saying what is wrong with it. The
 * product's own prefix is refused: those labels are how ownership is told.
 */
export function parseScopeLabels(text: string): { labels: Record<string, string> } | { problem: string } {
  const out: Record<string, string> = {};
  for (const item of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const at = item.indexOf('=');
    const [key, value] = at < 0 ? [item, ''] : [item.slice(0, at).trim(), item.slice(at + 1).trim()];
    if (!SCOPE_KEY.test(key) || !value)
      return { problem: `"${item}" is not key=value (e.g. ${SCOPE_ENV}=ci-job=1234,team=payments)` };
    if (key.startsWith('io.rightsize.')) return { problem: `"${key}": labels under io.rightsize. are Rightsize's own` };
    out[key] = value;
  }
  return { labels: out };
}

let scope: Readonly<Record<string, string>> | undefined;
/**
 * The labels this process adds to everything it makes (RIGHTSIZE_LABELS), which also scope what it
 * calls its own: its start-up sweep removes only dead sessions' containers that carry them, so jobs
 * sharing one engine (a CI's parallel lanes) never remove each other's. Throws on a malformed value.
 */
export function scopeLabels(): Readonly<Record<string, string>> {
  if (!scope) {
    const parsed = parseScopeLabels(process.env[SCOPE_ENV] ?? '');
    if ('problem' in parsed) throw new Error(`${SCOPE_ENV}: ${parsed.problem}`);
    scope = Object.freeze(parsed.labels);
  }
  return scope;
}

/** The product label and the scope's, as Docker label filters ("key=value"). */
export const ownFilters = (): string[] => [
  `${LABEL.product}=${PRODUCT}`,
  ...Object.entries(scopeLabels()).map(([k, v]) => `${k}=${v}`),
];

/** The product label and the scope's, for a container, service or image Rightsize makes. */
export const ownLabels = (): Record<string, string> => ({ ...scopeLabels(), [LABEL.product]: PRODUCT });
