// The shape of an app's load as users write it (manifest, Apps form, CLI, matrix request sets): requests,
// weights, sequences, templates and captures, every mistake reported with what to write instead.
import { z } from 'zod';
import type { Capture, MixEntry, RequestSpec, SequenceSpec } from '../model/requests.ts';
import { captureProblem } from '../mix/capture.ts';
import { mixRoutes, stepsOf, textsOf } from '../mix/routes.ts';
import { callsOf, parseTemplate } from '../mix/template.ts';

/** Most routes a mix counts (a histogram each, per load thread): name requests alike to count them as one route. */
export const MAX_ROUTES = 50;

const VAR = /^[A-Za-z_][A-Za-z0-9_]*$/;

const CaptureSchema: z.ZodType<Capture> = z.union(
  [z.strictObject({ json: z.string() }), z.strictObject({ header: z.string() }), z.strictObject({ regex: z.string() })],
  { error: 'a capture is one of {"json": "$.token"}, {"header": "Location"} or {"regex": "id=(\\\\d+)"}' },
);

const weight = z
  .number({ error: 'a weight is a number, e.g. 6' })
  .positive('a weight is above 0')
  .refine(Number.isFinite, 'a weight is a finite number');

export const RequestSpecSchema = z.strictObject({
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']).default('GET'),
  path: z.string().startsWith('/', 'a path starts with /'),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.string().optional(),
  /** The status this request must get; anything else counts as an error. Default: any 2xx. */
  status: z
    .number({ error: 'the expected status is a number, e.g. 201' })
    .int('the expected status is a whole number')
    .min(100, 'statuses go from 100 to 599')
    .max(599, 'statuses go from 100 to 599')
    .optional(),
  weight: weight.optional(),
  name: z.string().min(1, 'a route name is not empty').max(120, 'a route name has at most 120 characters').optional(),
  capture: z
    .record(z.string().regex(VAR, 'a captured name is letters, digits and _, e.g. token'), CaptureSchema)
    .optional(),
});

const SequenceSchema = z.strictObject({
  sequence: z.array(RequestSpecSchema).min(1, 'a sequence has at least one request'),
  weight: weight.optional(),
  name: z.string().min(1).max(120).optional(),
});

// The plain types live in the model; the schemas must parse to exactly them.
const _sameShape: z.ZodType<RequestSpec, z.input<typeof RequestSpecSchema>> = RequestSpecSchema;
const _sameSeq: z.ZodType<SequenceSpec, z.input<typeof SequenceSchema>> = SequenceSchema;
void _sameShape;
void _sameSeq;

/** A sequence if it says so, else a request: each reported in its own words (a union would only say "invalid"). */
const entry = z.unknown().transform((v, ctx): MixEntry => {
  const isSeq = typeof v === 'object' && v !== null && 'sequence' in v;
  const r = (isSeq ? SequenceSchema : RequestSpecSchema).safeParse(v);
  if (r.success) return r.data;
  for (const i of r.error.issues) ctx.addIssue({ code: 'custom', path: i.path, message: i.message });
  return z.NEVER;
});

/** Templates, captures and routes: what no field alone can check. */
function checkMix(mix: MixEntry[], ctx: z.RefinementCtx): void {
  mix.forEach((e, i) => {
    const captured = new Set<string>();
    stepsOf(e).forEach((r, j) => {
      const at: (string | number)[] = 'sequence' in e ? [i, 'sequence', j] : [i];
      const texts: [string, string][] = [
        ['path', r.path],
        ...Object.entries(r.headers ?? {}).map(([k, v]): [string, string] => [`headers.${k}`, v]),
        ...(r.body !== undefined ? [['body', r.body] as [string, string]] : []),
      ];
      for (const [field, t] of texts) {
        const parsed = parseTemplate(t);
        if ('problem' in parsed) {
          ctx.addIssue({ code: 'custom', path: [...at, field], message: parsed.problem });
          continue;
        }
        for (const v of callsOf(parsed.template, 'var'))
          if (!captured.has(v.name))
            ctx.addIssue({
              code: 'custom',
              path: [...at, field],
              message:
                `{{${v.name}}} is captured by no earlier step` +
                ('sequence' in e ? ' of this sequence' : ': captures pass values between the steps of a sequence'),
            });
      }
      for (const [name, c] of Object.entries(r.capture ?? {})) {
        const problem = captureProblem(c);
        if (problem) ctx.addIssue({ code: 'custom', path: [...at, 'capture', name], message: problem });
        captured.add(name);
      }
      if (!('sequence' in e) && r.capture)
        ctx.addIssue({
          code: 'custom',
          path: [...at, 'capture'],
          message: 'a capture serves the next steps of a sequence: put this request in one ({"sequence": [...]})',
        });
      if ('sequence' in e && r.weight !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: [...at, 'weight'],
          message: 'a step of a sequence has no weight of its own: weigh the sequence',
        });
    });
  });
  const routes = mixRoutes(mix).names.length;
  if (routes > MAX_ROUTES)
    ctx.addIssue({
      code: 'custom',
      path: [],
      message: `${routes} routes: a mix counts at most ${MAX_ROUTES}; give requests of one route the same "name"`,
    });
}

/** An app's requests: at least one; a mix when any has a weight or is a sequence. */
export const MixSchema = z.array(entry).min(1, 'give at least one request').superRefine(checkMix);

/** The columns each CSV file is asked for by a mix's `{{csv FILE COLUMN}}` templates (apps/mix-data.ts reads them). */
export function csvColumnsOf(mix: readonly MixEntry[]): Map<string, Set<string>> {
  const asked = new Map<string, Set<string>>();
  for (const e of mix)
    for (const r of stepsOf(e))
      for (const t of textsOf(r)) {
        const parsed = parseTemplate(t);
        if ('template' in parsed)
          for (const c of callsOf(parsed.template, 'csv'))
            asked.set(c.file, (asked.get(c.file) ?? new Set()).add(c.column));
      }
  return asked;
}
