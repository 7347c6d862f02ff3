// The compose-shop fixture (an API on PostgreSQL and Redis, with its Compose file), ready to add: copied into a
// folder of its own with `pg` and what it needs from Rightsize's own node_modules, so no registry is asked.
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packageClosure } from '../../src-main/docker/package-closure.ts';

export const SHOP_ROOT = path.resolve(import.meta.dirname, '../..');
const FIXTURE = path.join(SHOP_ROOT, 'tests/fixtures/compose-shop');

export function shopFolder(): string {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'rightsize-shop-')), 'shop');
  cpSync(FIXTURE, dir, { recursive: true });
  const { root, dirs } = packageClosure('pg', SHOP_ROOT);
  for (const d of dirs) {
    const rel = path.relative(path.join(root, 'node_modules'), d);
    mkdirSync(path.dirname(path.join(dir, 'node_modules', rel)), { recursive: true });
    cpSync(d, path.join(dir, 'node_modules', rel), { recursive: true });
  }
  return dir;
}
