// Schema problems in plain words, and "did you mean" for misspelt names. Shared by the matrix
// check, the presets and every transport's input check, so one misspelling reads the same
// everywhere. Pure: zod's issue shape is used as data only.
import { distance } from 'fastest-levenshtein';
import type { z } from 'zod';

export interface Problem {
  path: string;
  message: string;
}

/**
 * The known name closest to `word`: the same name in another case, a name it is the start of
 * (`cpu` → `cpuMillicores`), or one a few edits away (about one in three letters). Undefined when
 * nothing is close enough to be a likely typo.
 */
export function closest(word: string, known: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  let best: { name: string; score: number } | undefined;
  for (const name of known) {
    const n = name.toLowerCase();
    let score: number;
    if (n === w) score = 0;
    else if (w.length >= 3 && (n.startsWith(w) || w.startsWith(n))) score = 0.5;
    else {
      const d = distance(w, n);
      score = d <= Math.max(1, Math.floor(Math.max(w.length, n.length) / 3)) ? d : Infinity;
    }
    if (score < (best?.score ?? Infinity)) best = { name, score };
  }
  return best?.name;
}

/** ` Did you mean "x"?` or nothing. */
export function didYouMean(word: string, known: readonly string[]): string {
  const c = closest(word, known);
  return c === undefined ? '' : ` Did you mean "${c}"?`;
}

const MAX_SHOWN = 40;

/** A value as words, for "should be a list, not …": short, and never the whole of a huge input. */
export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `a list (${v.length} item${v.length === 1 ? '' : 's'})`;
  switch (typeof v) {
    case 'string': {
      const s = JSON.stringify(v.length > MAX_SHOWN ? `${v.slice(0, MAX_SHOWN)}…` : v);
      return `the text ${s}`;
    }
    case 'number':
      return `the number ${v}`;
    case 'boolean':
      return `${v}`;
    case 'object':
      return 'an object';
    default:
      return typeof v;
  }
}

const TYPE_WORDS: Record<string, string> = {
  array: 'a list',
  object: 'an object ({…})',
  number: 'a number',
  int: 'a whole number',
  string: 'text (in quotes)',
  boolean: 'true or false',
  record: 'an object of names to values',
};

/** The value at `path` inside `root`, or undefined. Walks only as deep as the path. */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const k of path) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, k)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

export const pathText = (path: readonly PropertyKey[], root = '(input)'): string =>
  path.length ? path.map(String).join('.') : root;

export interface PlainOptions {
  /** The names allowed at a path (for an unknown field's suggestion). */
  knownKeys?: (path: readonly PropertyKey[]) => readonly string[];
  /**
   * What a missing or wrongly typed field should hold, in words, e.g. "the CPU caps in millicores, e.g. [500, 1000]".
   */
  hint?: (path: readonly PropertyKey[]) => string | undefined;
  /** The path shown for the input as a whole. */
  root?: string;
}

const listOf = (values: readonly unknown[]): string =>
  values.map((v) => (typeof v === 'string' ? `"${v}"` : String(v))).join(', ');

/** A value outside a fixed set: which set, and the nearest member when the value looks like a typo of one. */
function notOneOf(value: unknown, allowed: readonly unknown[], hint?: string): string {
  if (value === undefined) return `is missing: give ${hint ?? `one of ${listOf(allowed)}`}.`;
  const shown =
    typeof value === 'string'
      ? JSON.stringify(value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value)
      : describeValue(value);
  const guess =
    typeof value === 'string'
      ? didYouMean(
          value,
          allowed.filter((x): x is string => typeof x === 'string'),
        )
      : '';
  return `${shown} is not one of ${listOf(allowed)}.${guess}`;
}

/**
 * Every issue of a failed parse as a problem in plain words naming its field: a missing field and
 * what it should hold, a wrong type and what was given instead, an unknown field with the
 * likeliest intended one, a value outside a fixed set with the nearest of them.
 */
export function plainProblems(error: z.ZodError, input: unknown, o: PlainOptions = {}): Problem[] {
  const out: Problem[] = [];
  const at = (path: readonly PropertyKey[], message: string): void =>
    void out.push({ path: pathText(path, o.root), message });
  for (const issue of error.issues) {
    const path = issue.path;
    const value = valueAt(input, path);
    const hint = o.hint?.(path);
    switch (issue.code) {
      case 'unrecognized_keys': {
        const known = o.knownKeys?.(path) ?? [];
        for (const key of issue.keys) {
          const guess = didYouMean(key, known);
          at(
            [...path, key],
            `is not a field here.${guess || (known.length ? ` Fields here: ${known.join(', ')}.` : '')}`,
          );
        }
        break;
      }
      case 'invalid_type': {
        const expected = TYPE_WORDS[issue.expected] ?? issue.expected;
        if (value === undefined) at(path, `is missing: give ${hint ?? expected}.`);
        else at(path, `should be ${hint ?? expected}, not ${describeValue(value)}.`);
        break;
      }
      case 'invalid_value':
        at(path, notOneOf(value, issue.values, hint));
        break;
      case 'invalid_union': {
        const options = (issue as { options?: unknown[] }).options;
        if (options && (issue as { note?: string }).note === 'No matching discriminator')
          at(path, notOneOf(value, options, hint));
        else at(path, hint ? `should be ${hint}.` : 'does not match any allowed form.');
        break;
      }
      case 'too_small':
      case 'too_big': {
        const bound = Number(
          issue.code === 'too_small'
            ? (issue as { minimum: unknown }).minimum
            : (issue as { maximum: unknown }).maximum,
        );
        const kind = (issue as { origin?: string }).origin;
        if (issue.code === 'too_small' && bound === 1 && (kind === 'string' || kind === 'array')) {
          at(path, kind === 'string' ? 'must not be empty.' : 'needs at least one item.');
          break;
        }
        const unit = kind === 'string' ? ' characters' : kind === 'array' ? ' items' : '';
        const shown = value !== undefined && typeof value !== 'object' && kind !== 'string';
        const not = shown ? `, not ${describeValue(value)}` : '';
        at(path, `${issue.code === 'too_small' ? 'needs at least' : 'takes at most'} ${bound}${unit}${not}.`);
        break;
      }
      default:
        at(path, /[.?!]$/.test(issue.message) ? issue.message : `${issue.message}.`);
    }
  }
  return out;
}

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  options?: z.ZodType[];
  valueType?: z.ZodType;
  in?: z.ZodType;
};
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The schemas a path can lead to, looking through optional/default wrappers and union options. */
function schemasAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType[] {
  const open = (s: z.ZodType): z.ZodType[] => {
    const d = defOf(s);
    if (d.innerType && d.type !== 'object') return open(d.innerType);
    if (d.type === 'pipe' && d.in) return open(d.in);
    if (d.type === 'union' && d.options) return d.options.flatMap(open);
    return [s];
  };
  let here = open(schema);
  for (const key of path) {
    here = here.flatMap((s) => {
      const d = defOf(s);
      if (d.type === 'object' && d.shape && typeof key === 'string' && Object.hasOwn(d.shape, key))
        return open(d.shape[key]!);
      if (d.type === 'array' && d.element && typeof key === 'number') return open(d.element);
      if (d.type === 'record' && d.valueType) return open(d.valueType);
      return [];
    });
  }
  return here;
}

/** The field names an object schema allows at `path` (all options of a union together). */
export function schemaKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  return [...new Set(schemasAt(schema, path).flatMap((s) => Object.keys(defOf(s).shape ?? {})))];
}
