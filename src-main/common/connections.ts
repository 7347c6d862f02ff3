// The database connections a configuration opens where its pool size is a setting: replicas × processes × pool.
// One rule for the snippets' line and the answer's words.

/** A connection pool's size variable (PG_POOL_SIZE, DB_POOL_MAX, POOL), not libuv's (UV_THREADPOOL_SIZE). */
const POOL = (name: string): boolean => /(^|_)POOL(_?(SIZE|MAX))?$/i.test(name) && !/THREADPOOL/i.test(name);

export interface PoolConnections {
  variable: string;
  pool: number;
  processes: number;
  replicas: number;
  total: number;
}

/** The most connections a configuration opens, from its settings; null without a whole-number pool setting. */
export function poolConnections(c: {
  env?: Record<string, string> | undefined;
  mode: string;
  workers: number;
  replicas?: number | undefined;
}): PoolConnections | null {
  const found = Object.keys(c.env ?? {})
    .sort()
    .find((k) => POOL(k) && /^\d+$/.test(c.env![k]!));
  if (!found) return null;
  const pool = Number(c.env![found]);
  const processes = c.mode === 'single' ? 1 : c.workers;
  const replicas = Math.max(1, c.replicas ?? 1);
  return { variable: found, pool, processes, replicas, total: replicas * processes * pool };
}

/** "2 replicas × 4 processes × PG_POOL_SIZE 10 = 80 database connections". */
export function connectionsText(p: PoolConnections): string {
  return (
    `${p.replicas > 1 ? `${p.replicas} replicas × ` : ''}${p.processes} process${p.processes === 1 ? '' : 'es'} × ` +
    `${p.variable} ${p.pool} = ${p.total} database connections`
  );
}
