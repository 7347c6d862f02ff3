import { z } from 'zod';
import { BASE_STRATEGIES } from '../docker/base-image.ts';
import { RUN_STATUSES } from '../model/types.ts';
import { RUN_SORTS } from '../store/index.ts';
import { findPreset, unknownPresetMessage } from '../presets/presets.ts';
import { MAX_IMPORT_CHARS, type CallName, type StreamName } from './api.ts';

// Input schemas checked at the boundary, in every transport. `strict()` so a misspelt field is an
// error the UI sees, not a silently ignored option.
const none = z.object({}).strict();
const id = z.number().int().positive();
const runRef = z.object({ runId: id }).strict();
const appName = z.string().min(1).max(40);
const targetName = z.string().min(1).max(40);
const answer = z
  .object({
    runId: id,
    marginPct: z.number().min(0).lt(100).optional(),
    slo: z
      .object({ p99Ms: z.number().positive(), minRps: z.number().min(0), maxErrorPct: z.number().min(0).max(100) })
      .strict()
      .optional(),
    prices: z
      .object({
        cpuHour: z.number().min(0).max(1000).optional(),
        gbHour: z.number().min(0).max(1000).optional(),
        replicaHour: z.number().min(0).max(1000).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export const CALL_INPUTS: { [K in CallName]: z.ZodType } = {
  'engine.status': none,
  'engine.recheck': none,
  'apps.list': none,
  'presets.list': none,
  // `target`: checked against that target's largest free node, estimated with its cells at once; an
  // unknown name is a problem in the answer (path 'target'), not a refusal. `name`: the run's name, whose
  // earlier runs tell the estimate what settling and verification to expect.
  'matrix.validate': z
    .object({ matrix: z.unknown(), target: targetName.optional(), name: z.string().min(1).max(200).optional() })
    .strict(),
  // The app itself is checked by the engine (resolveUserApp), which reports every problem with what to fix.
  'apps.check': z.object({ app: z.unknown(), replacing: appName.optional() }).strict(),
  'apps.add': z.object({ app: z.unknown() }).strict(),
  'apps.update': z.object({ name: appName, app: z.unknown() }).strict(),
  'apps.remove': z.object({ name: appName }).strict(),
  'apps.build': z.object({ name: appName }).strict(),
  'apps.tryOut': z.object({ name: appName }).strict(),
  // The file's text is read by the engine (importRequests: a problem names the line); only its size is capped here.
  'apps.importRequests': z
    .object({
      text: z
        .string()
        .refine(
          (t) => t.length <= MAX_IMPORT_CHARS,
          `the file is over ${MAX_IMPORT_CHARS / 2 ** 20} MB: save a shorter HAR, or import part of the log ` +
            '(a few thousand requests give the mix its shares)',
        ),
      fileName: z.string().max(255),
      keepStatic: z.boolean().optional(),
      allHosts: z.boolean().optional(),
    })
    .strict(),
  // The matrix is checked by the engine (validateMatrix: every problem at once, in words); a preset
  // named here must exist, matched as the CLI matches it.
  'runs.start': z
    .object({
      matrix: z.unknown(),
      name: z.string().min(1).max(200).optional(),
      preset: z
        .string()
        .max(100)
        .refine((p) => findPreset(p) !== undefined, { error: (i) => unknownPresetMessage(String(i.input)) })
        .transform((p) => findPreset(p)?.name ?? p) // `Quick` is stored as `quick`
        .optional(),
      target: targetName.optional(),
      baseline: z.string().min(1).max(100).optional(),
      thresholdPct: z.number().gt(0).lt(100).optional(),
    })
    .strict(),
  // The spec is checked by the engine (validateSizeSpec: every problem at once, in words).
  'size.validate': z.object({ spec: z.unknown(), target: targetName.optional() }).strict(),
  'runs.size': z
    .object({ spec: z.unknown(), name: z.string().min(1).max(200).optional(), target: targetName.optional() })
    .strict(),
  'runs.cancel': runRef,
  'runs.list': z
    .object({
      limit: z.number().int().min(1).max(1000).optional(),
      offset: z.number().int().min(0).optional(),
      status: z.enum(RUN_STATUSES).optional(),
      search: z.string().max(200).optional(),
      sort: z.enum(RUN_SORTS).optional(),
      order: z.enum(['asc', 'desc']).optional(),
    })
    .strict(),
  'runs.get': runRef,
  'runs.delete': runRef,
  'runs.samples': runRef,
  'cells.samples': z.object({ cellId: id }).strict(),
  'runs.probe': z.object({ runId: id, cellId: id.optional() }).strict(),
  'export.csv': z.object({ runId: id, kind: z.enum(['cells', 'samples', 'probe', 'configurations']) }).strict(),
  'files.save': z
    .object({
      filename: z
        .string()
        .min(1)
        .max(255)
        .regex(/^[^/\\]+$/, 'a file name, not a path'),
      content: z.string().max(50 * 1024 * 1024),
      encoding: z.enum(['utf8', 'base64']),
    })
    .strict(),
  'runs.recommend': answer,
  'export.html': answer,
  'deploy.snippets': answer.extend({ cellId: id.optional() }).strict(),
  'settings.get': none,
  'settings.set': z.object({ baseImage: z.enum(BASE_STRATEGIES).optional() }).strict(),
  // The target itself is checked by the engine (validateTarget: every problem at once, did-you-mean, no key material).
  'targets.list': none,
  'targets.add': z.object({ target: z.unknown() }).strict(),
  'targets.remove': z.object({ name: targetName }).strict(),
  'targets.check': z.object({ name: targetName }).strict(),
  'runs.compare': z
    .object({
      runId: id,
      baseline: z.string().min(1).max(100).optional(),
      thresholdPct: z.number().gt(0).lt(100).optional(),
    })
    .strict(),
  'baselines.list': none,
};

export const STREAM_INPUTS: { [K in StreamName]: z.ZodType } = {
  'engine.status': none,
  'apps.buildLog': z.object({ name: appName.optional() }).strict(),
  'run.progress': z.object({ runId: id.optional() }).strict(),
  'run.samples': z.object({ runId: id.optional(), cellId: id.optional() }).strict(),
  'run.cellFinished': z.object({ runId: id.optional() }).strict(),
};
