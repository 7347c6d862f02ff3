// The value syntaxes of a Compose file that no schema checks: `${VAR:-default}` interpolation,
// durations ("1m30s") and byte sizes ("512m"); commands and env files through shell-quote and dotenv.
import { parse as parseDotenv } from 'dotenv';
import { parse as parseShell } from 'shell-quote';

/** Compose's interpolation: `$$` is `$`; `${X}`, `$X`; `${X:-d}` (unset or empty), `${X-d}` (unset); `${X:?err}`. */
export function interpolate(text: string, env: Record<string, string | undefined>, missing: Set<string>): string {
  return text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (m, braced, colon, op, arg, bare) => {
      if (m === '$$') return '$';
      const name = (braced ?? bare) as string;
      const v = env[name];
      const unset = v === undefined || (colon === ':' && v === '');
      if (op === '-' && unset) return arg as string;
      if (op === '?' && unset) throw new Error(`${name} is required: ${arg || 'it is not set'}`);
      if (v === undefined) missing.add(name);
      return v ?? '';
    },
  );
}

/** Interpolates every string of a parsed document (keys too, as Compose does). */
export function interpolateAll(doc: unknown, env: Record<string, string | undefined>, missing: Set<string>): unknown {
  if (typeof doc === 'string') return interpolate(doc, env, missing);
  if (Array.isArray(doc)) return doc.map((d) => interpolateAll(d, env, missing));
  if (doc && typeof doc === 'object')
    return Object.fromEntries(
      Object.entries(doc).map(([k, v]) => [interpolate(k, env, missing), interpolateAll(v, env, missing)]),
    );
  return doc;
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "1m30s", "500ms", "10s" → milliseconds; undefined when it is not a duration. */
export function durationMs(text: string | number): number | undefined {
  if (typeof text === 'number') return text * 1000;
  const parts = [...text.trim().matchAll(/(\d+(?:\.\d+)?)(us|ms|s|m|h)/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== text.trim()) return undefined;
  return Math.round(parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2]!]!, 0));
}

const UNIT_BYTES: Record<string, number> = { b: 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30 };

/** "512m", "1g", "1.5G", "268435456", 268435456 → mebibytes (rounded up); undefined when it is not a size. */
export function sizeMb(text: string | number): number | undefined {
  if (typeof text === 'number') return Math.ceil(text / 2 ** 20);
  const m = /^(\d+(?:\.\d+)?)\s*([bkmg])?b?$/i.exec(text.trim());
  if (!m) return undefined;
  return Math.ceil((Number(m[1]) * UNIT_BYTES[(m[2] ?? 'b').toLowerCase()]!) / 2 ** 20);
}

/** A command given as one string, split as a shell splits words (quotes, backslashes); no expansion. */
export function splitCommand(text: string): string[] {
  const words = parseShell(text, (name) => `$${name}`);
  const op = words.find((w) => typeof w !== 'string');
  if (op) throw new Error(`"${text}" is a shell line (it has ${JSON.stringify(op)}): give the command as a list`);
  return words as string[];
}

/** KEY=value lines of an env file, as dotenv (and Compose) read them. */
export const parseEnvFile = (text: string): Record<string, string> => parseDotenv(text);

/** `environment:` as a map or a list of "K=V" (a bare "K" takes the value from the shell, as Compose does). */
export function envOf(v: unknown, shell: Record<string, string | undefined>): Record<string, string> {
  if (Array.isArray(v))
    return Object.fromEntries(
      v.flatMap((e: string) => {
        const eq = e.indexOf('=');
        if (eq < 0) return shell[e] === undefined ? [] : [[e, shell[e]!]];
        return [[e.slice(0, eq), e.slice(eq + 1)]];
      }),
    );
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>).flatMap(([k, x]) =>
        x === null || x === undefined ? (shell[k] === undefined ? [] : [[k, shell[k]!]]) : [[k, String(x)]],
      ),
    );
  return {};
}
