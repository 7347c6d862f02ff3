// A try-out's findings and what to change, from its answers alone (no Docker here): the health path
// and each request asked a few times on one container, so that a wrong health path or port shows up
// when the app is added, not after a matrix of cells that each waited for readiness.

/** One attempt at a path: the status it answered with and how long it took, or why nothing answered. */
export interface ProbeAnswer {
  status?: number;
  ms?: number;
  error?: string;
  /** Answered, but not as its request expects: a failed capture ("capture token: $.token not in the 200 response"). */
  why?: string;
}

/** One path asked `answers.length` times. */
export interface TryProbe {
  /** 'health': the app's health path; 'request': one of its requests; 'guess': a usual health path tried for advice. */
  kind: 'health' | 'request' | 'guess';
  method: string;
  path: string;
  /** The status that counts as right: the request's own, or any 2xx. */
  expected: number | '2xx';
  answers: ProbeAnswer[];
  /** Every attempt answered as expected. */
  ok: boolean;
}

/** What to change: a health path to use (the UI offers it as one click), or words. */
export type TrySuggestion = { kind: 'health'; path: string; because: string } | { kind: 'note'; text: string };

export interface TryOutResult {
  app: string;
  /** The health path answered 2xx and every request its expected status. */
  ok: boolean;
  image: string;
  /** Whether the try-out had to build the image. */
  built: boolean;
  /** The server answered anything at all on its port (seconds until the first answer in `startSec`). */
  answered: boolean;
  startSec?: number;
  /** Seconds the try-out waited for a first answer. */
  waitedSec: number;
  probes: TryProbe[];
  suggestions: TrySuggestion[];
  /** The container's exit code when it stopped by itself. */
  exitCode?: number;
  /** The app's last log lines, when something was wrong. */
  logTail: string[];
  /** Why the try-out could not get as far as asking (the image did not build, the container did not start). */
  failed?: string;
}

/** Paths many frameworks' health checks use, asked only when the health path did not answer 2xx. */
export const USUAL_HEALTH_PATHS = ['/health', '/healthz', '/ready', '/readyz', '/status', '/ping', '/api/health'];

export const isExpected = (status: number | undefined, expected: number | '2xx'): boolean =>
  status !== undefined && (expected === '2xx' ? status >= 200 && status < 300 : status === expected);

const is2xx = (s: number | undefined): boolean => s !== undefined && s >= 200 && s < 300;

/** "404", "404 ×3", "no answer (ECONNREFUSED)": what a probe's attempts got, briefly. */
export function answeredWith(p: Pick<TryProbe, 'answers'>): string {
  const parts = p.answers.map((a) =>
    a.status !== undefined ? `${a.status}${a.why ? ` (${a.why})` : ''}` : `no answer (${a.error ?? '?'})`,
  );
  const same = parts.every((x) => x === parts[0]);
  return same && parts.length > 1 ? `${parts[0]} ×${parts.length}` : parts.join(', ');
}

/**
 * What to change, from what answered. A health path that did not answer 2xx, while a usual health
 * path or a GET request did, suggests that path as the health path (a usual one first: it is meant
 * for it). Nothing answered at all: the port, or the app's exit and log. A request that got a
 * status other than its own: its path or its expected status.
 */
export function trySuggestions(
  r: Pick<TryOutResult, 'answered' | 'probes' | 'exitCode' | 'waitedSec'> & { logTail?: readonly string[] },
  app: { port: number; dependencies?: readonly { name: string; image: string; port?: number }[] },
): TrySuggestion[] {
  const out: TrySuggestion[] = [];
  // A dependency the app could not reach is the cause, not the health path or the port: said first, and alone.
  const fault = dependencyFault(r.logTail ?? [], app.dependencies ?? []);
  if (fault && !(r.answered && r.probes.every((p) => p.kind === 'guess' || p.ok)))
    return [{ kind: 'note', text: fault }];
  if (!r.answered) {
    out.push({
      kind: 'note',
      text:
        r.exitCode !== undefined
          ? `the app exited with code ${r.exitCode} before it answered: its last log lines say why`
          : `nothing answered on port ${app.port} within ${Math.round(r.waitedSec)} s: ` +
            'check the port the app listens on (it must listen on 0.0.0.0 or on PORT, not only on 127.0.0.1)',
    });
    return out;
  }
  const health = r.probes.find((p) => p.kind === 'health');
  if (health && !health.ok) {
    const status = health.answers.find((a) => a.status !== undefined)?.status;
    const said = status !== undefined ? `answered ${status}` : 'did not answer';
    const guess = r.probes.find((p) => p.kind === 'guess' && p.path !== health.path && p.ok);
    const request = r.probes.find(
      (p) => p.kind === 'request' && p.method === 'GET' && p.ok && p.answers.every((a) => is2xx(a.status)),
    );
    const use = guess ?? request;
    if (use)
      out.push({
        kind: 'health',
        path: use.path,
        because: `the health path ${health.path} ${said}, while GET ${use.path} answered ${answeredWith(use)}`,
      });
    else
      out.push({
        kind: 'note',
        text: `the health path ${health.path} ${said}: give a path that answers 2xx to GET once the app is up`,
      });
  }
  for (const p of r.probes.filter((x) => x.kind === 'request' && !x.ok)) {
    const got = p.answers.find((a) => a.status !== undefined)?.status;
    out.push({
      kind: 'note',
      text:
        got === undefined
          ? `${p.method} ${p.path} got no answer (${p.answers[0]?.error ?? '?'})`
          : `${p.method} ${p.path} answered ${answeredWith(p)}, not ${p.expected}: ` +
            (p.expected === '2xx'
              ? 'check the path, or give the status it should answer'
              : 'check the path and the expected status'),
    });
  }
  return out;
}

/** Errors a client library prints when its server is not there, refuses it, or turns it away. */
const CONNECTION_FAULT = new RegExp(
  'ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|getaddrinfo|authentication failed|too many clients|' +
    'does not exist|NOAUTH|connection (refused|terminated)',
  'i',
);

/** What a server's refusal says, by the kind of image: a line naming neither host nor port still names its server. */
const SERVER_WORDS: [RegExp, RegExp][] = [
  [/postgres/, /password authentication failed|too many clients|(database|role) "[^"]*" does not exist/i],
  [/redis/, /NOAUTH|WRONGPASS|max number of clients/i],
  [/mysql|mariadb/, /Access denied for user|Too many connections|Unknown database/i],
];

/**
 * Words naming the dependency the app's log shows it failed to reach (by its host name or its port on a
 * line with a connection error), with that line; undefined when the log shows none.
 */
export function dependencyFault(
  log: readonly string[],
  deps: readonly { name: string; image: string; port?: number }[],
): string | undefined {
  for (const line of log) {
    if (!CONNECTION_FAULT.test(line)) continue;
    const dep =
      deps.find(
        (d) =>
          new RegExp(`(^|[^A-Za-z0-9_.-])${d.name}([^A-Za-z0-9_-]|$)`).test(line) ||
          (d.port !== undefined && new RegExp(`:${d.port}\\b`).test(line)),
      ) ?? deps.find((d) => SERVER_WORDS.some(([image, words]) => image.test(d.image) && words.test(line)));
    if (dep)
      return (
        `the app could not use its dependency ${dep.name} (${dep.image}): ` +
        `its log says "${line.trim().slice(0, 200)}". ` +
        `Check how the app reaches ${dep.name} (its address, user and password in the environment) and ` +
        `${dep.name}'s own settings; the health path is not the problem`
      );
  }
  return undefined;
}
