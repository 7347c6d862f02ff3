import { z } from 'zod';
import type { RequestSpec } from '../model/types.ts';
import { DependenciesSchema } from './dependencies.ts';

export const RequestSpecSchema = z.object({
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
});
export type { RequestSpec };
// The plain type lives in the model; the schema must parse to exactly it.
const _sameShape: z.ZodType<RequestSpec, z.input<typeof RequestSpecSchema>> = RequestSpecSchema;
void _sameShape;

/** apps/<name>/manifest.json: what an app is, and how to load it. */
export const AppManifestSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and dashes'),
  version: z.string(),
  description: z.string(),
  stresses: z.string(),
  entry: z.string(),
  port: z.number().int().min(1).max(65535),
  health: z.string().startsWith('/'),
  requests: z.array(RequestSpecSchema).min(1),
  env: z.record(z.string(), z.string()).default({}),
  /** What the app talks to (its database, its cache): started fresh beside it for every cell. */
  dependencies: DependenciesSchema.optional(),
  /** npm packages it requires, copied into its image from Rightsize's own node_modules (no registry asked). */
  packages: z.array(z.string()).optional(),
});
export type AppManifest = z.infer<typeof AppManifestSchema>;
