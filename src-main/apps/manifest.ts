import { z } from 'zod';
import type { RequestSpec } from '../model/types.ts';
import { DependenciesSchema } from './dependencies.ts';
import { MixSchema } from './request-schema.ts';
import { Http2Schema } from './served-links.ts';

export { RequestSpecSchema } from './request-schema.ts';
export type { RequestSpec };

/** apps/<name>/manifest.json: what an app is, and how to load it. */
export const AppManifestSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and dashes'),
  version: z.string(),
  description: z.string(),
  stresses: z.string(),
  entry: z.string(),
  port: z.number().int().min(1).max(65535),
  health: z.string().startsWith('/'),
  requests: MixSchema,
  env: z.record(z.string(), z.string()).default({}),
  /** What the app talks to (its database, its cache): started fresh beside it for every cell. */
  dependencies: DependenciesSchema.optional(),
  /** npm packages it requires, copied into its image from Rightsize's own node_modules (no registry asked). */
  packages: z.array(z.string()).optional(),
  /**
   * A user's app that serves HTTPS itself (`apps add --tls`): every cell of it is measured over TLS, and it is given
   * the run's certificate and key in RS_TLS_CERT and RS_TLS_KEY (PEM) unless it brings its own.
   */
  tls: z.literal(true).optional(),
  /**
   * A user's app that serves HTTP/2 itself (`apps add --http2`): "h2" over TLS with HTTP/1.1 beside it (ALPN, as
   * http2.createSecureServer({ allowHTTP1: true }); with tls), or "h2c" in clear, HTTP/2 only. Absent: HTTP/1.1 only.
   */
  http2: Http2Schema.optional(),
  /**
   * A PM2 ecosystem file shipped with a built-in app, and its `instances` where it counts the host's CPUs ("max", 0,
   * -1): what the answer names as a trap. A user's app keeps the same in its source (apps/user-apps.ts).
   */
  ecosystem: z.strictObject({ file: z.string(), instances: z.string() }).optional(),
});
export type AppManifest = z.infer<typeof AppManifestSchema>;
