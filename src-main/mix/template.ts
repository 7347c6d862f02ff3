// Values per request: `{{int 1 5000}}`, `{{zipf 1 5000 1.1}}`, `{{pick a b c}}`, `{{uuid}}`,
// `{{seq}}`, `{{csv ids.csv id}}` and captured values (`{{token}}`) in paths, headers and bodies.
// Parsed once (apps/request-schema.ts reports a bad one with what to write), compiled once per load
// thread into closures, rendered per request from the connection's own generator.
import type { Rng } from './random.ts';
import { ZIPF_MAX_VALUES, zipfSampler } from './zipf.ts';

export type Call =
  | { fn: 'int'; min: number; max: number }
  | { fn: 'zipf'; min: number; max: number; s: number }
  | { fn: 'pick'; words: string[] }
  | { fn: 'uuid' }
  | { fn: 'seq' }
  | { fn: 'csv'; file: string; column: string }
  | { fn: 'var'; name: string };

/** Literal text and calls, in order. */
export type Template = (string | Call)[];

/** What a request's values come from on its connection. */
export interface RenderContext {
  rng: Rng;
  /** A number no other request of the cell gets (connection c of C: c, c + C, c + 2C, …). */
  seq: () => number;
  /** Values captured by earlier steps of the connection's sequence. */
  vars: Record<string, string>;
  /** The row of `file` this request reads (one row per file per request, so its columns stay together). */
  row: (file: string, rows: number) => number;
}

export type Render = (ctx: RenderContext) => string;

/** CSV files by name as the templates write it, column by column (apps/mix-data.ts reads them). */
export type CsvTables = Record<string, Record<string, string[]>>;

const SYNTAX =
  '{{int MIN MAX}}, {{zipf MIN MAX S}}, {{pick a b c}}, {{uuid}}, {{seq}}, {{csv FILE COLUMN}} or a captured {{name}}';
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const WHOLE = /^-?\d+$/;

function call(words: string[], inner: string): Call | string {
  const [fn, ...args] = words;
  const whole = (i: number): number | undefined => (WHOLE.test(args[i] ?? '') ? Number(args[i]) : undefined);
  switch (fn) {
    case 'int':
    case 'zipf': {
      const min = whole(0);
      const max = whole(1);
      const need =
        fn === 'int' ? '{{int MIN MAX}}, e.g. {{int 1 5000}}' : '{{zipf MIN MAX S}}, e.g. {{zipf 1 5000 1.1}}';
      if (args.length !== (fn === 'int' ? 2 : 3) || min === undefined || max === undefined)
        return `{{${inner}}}: write ${need} (whole numbers)`;
      if (min > max) return `{{${inner}}}: MIN (${min}) is above MAX (${max})`;
      if (fn === 'int') return { fn, min, max };
      const s = Number(args[2]);
      if (!(s > 0) || !Number.isFinite(s)) return `{{${inner}}}: the exponent S is a number above 0, e.g. 1.1`;
      if (max - min + 1 > ZIPF_MAX_VALUES)
        return `{{${inner}}}: a zipf range spans at most ${ZIPF_MAX_VALUES.toLocaleString('en-US')} values`;
      return { fn, min, max, s };
    }
    case 'pick':
      return args.length ? { fn, words: args } : `{{${inner}}}: name the values to pick from, e.g. {{pick a b c}}`;
    case 'uuid':
    case 'seq':
      return args.length ? `{{${inner}}}: {{${fn}}} takes nothing more` : { fn };
    case 'csv':
      return args.length === 2
        ? { fn, file: args[0]!, column: args[1]! }
        : `{{${inner}}}: write {{csv FILE COLUMN}}, e.g. {{csv ids.csv id}}`;
    default:
      if (fn && NAME.test(fn) && !args.length) return { fn: 'var', name: fn };
      return `{{${inner}}} is not a template: write ${SYNTAX}`;
  }
}

/** The template in `text`, or what is wrong with it in words. */
export function parseTemplate(text: string): { template: Template } | { problem: string } {
  const out: Template = [];
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf('{{', at);
    if (open < 0) break;
    const close = text.indexOf('}}', open + 2);
    if (close < 0) return { problem: `"{{" at character ${open + 1} is never closed with "}}"` };
    if (open > at) out.push(text.slice(at, open));
    const inner = text.slice(open + 2, close).trim();
    const c = call(inner.split(/\s+/).filter(Boolean), inner);
    if (typeof c === 'string') return { problem: c };
    out.push(c);
    at = close + 2;
  }
  if (at < text.length) out.push(text.slice(at));
  return { template: out };
}

/** A template checked when its app was saved: its problem now is a bug, thrown. */
export function checkedTemplate(text: string): Template {
  const parsed = parseTemplate(text);
  if ('problem' in parsed) throw new Error(parsed.problem);
  return parsed.template;
}

/** The calls of a template, of one kind. */
export const callsOf = <F extends Call['fn']>(t: Template, fn: F): Extract<Call, { fn: F }>[] =>
  t.filter((p): p is Extract<Call, { fn: F }> => typeof p !== 'string' && p.fn === fn);

const HEX4 = Array.from({ length: 65536 }, (_, i) => i.toString(16).padStart(4, '0'));

/** 128 bits from the generator as a version-4 UUID (repeatable, unlike crypto.randomUUID). */
function uuid(rng: Rng): string {
  const a = rng.int(0, 0xffffffff);
  const b = rng.int(0, 0xffffffff);
  const c = rng.int(0, 0xffffffff);
  const d = rng.int(0, 0xffffffff);
  return (
    HEX4[a >>> 16]! +
    HEX4[a & 0xffff]! +
    '-' +
    HEX4[b >>> 16]! +
    '-' +
    HEX4[0x4000 | (b & 0x0fff)]! +
    '-' +
    HEX4[0x8000 | ((c >>> 16) & 0x3fff)]! +
    '-' +
    HEX4[c & 0xffff]! +
    HEX4[d >>> 16]! +
    HEX4[d & 0xffff]!
  );
}

function renderCall(c: Call, csv: CsvTables): Render {
  switch (c.fn) {
    case 'int':
      return (x) => String(x.rng.int(c.min, c.max));
    case 'zipf': {
      const sample = zipfSampler(c.min, c.max, c.s);
      return (x) => String(sample(x.rng.float()));
    }
    case 'pick': {
      const w = c.words;
      return w.length === 1 ? () => w[0]! : (x) => w[x.rng.int(0, w.length - 1)]!;
    }
    case 'uuid':
      return (x) => uuid(x.rng);
    case 'seq':
      return (x) => String(x.seq());
    case 'csv': {
      const values = csv[c.file]?.[c.column];
      if (!values?.length) throw new Error(`{{csv ${c.file} ${c.column}}}: no such column, or no rows`);
      return (x) => values[x.row(c.file, values.length)]!;
    }
    case 'var':
      return (x) => x.vars[c.name] ?? '';
  }
}

/** The template as literal text and renderers, in order (a request's bytes are built from several of these). */
export const compileParts = (t: Template, csv: CsvTables): (string | Render)[] =>
  t.map((p) => (typeof p === 'string' ? p : renderCall(p, csv)));

/** What renders the template: its text when it has no calls (sent as it is, built once). */
export function compileTemplate(t: Template, csv: CsvTables): string | Render {
  if (t.every((p) => typeof p === 'string')) return t.join('');
  const parts = compileParts(t, csv);
  return (x) => {
    let s = '';
    for (const p of parts) s += typeof p === 'string' ? p : p(x);
    return s;
  };
}
