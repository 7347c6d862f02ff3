/** An environment variable's name, as every definition, Compose import and matrix checks it. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A setting's variables and values in name order ([] for none): how every listing writes them. */
export const envPairs = (env: Record<string, string> | undefined): [string, string][] =>
  Object.keys(env ?? {})
    .sort()
    .map((k) => [k, env![k]!]);

/** "PG_POOL_SIZE=10, UV_THREADPOOL_SIZE=8" (`sep` between them); '' for none. */
export const envWords = (env: Record<string, string> | undefined, sep = ', '): string =>
  envPairs(env)
    .map(([k, v]) => `${k}=${v}`)
    .join(sep);
