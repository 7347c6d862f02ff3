// `matrix.validate` as the real Lab answers it, for the files that need the engine's rules: apart from setup.ts, so
// the files that do not need them do not load the engine's matrix modules (each file loads its own, isolated).
import { validateMatrix } from '../../src-main/engine/matrix.ts';

/** The engine's own rules; 2 cores, 8 GiB, the hello and json apps; 13 s a cell. */
export function validateLikeTheEngine({ matrix }: { matrix: unknown }): unknown {
  const v = validateMatrix(matrix, { cores: 2, memoryMb: 8192, apps: ['hello', 'json'] });
  return v.ok ? { ok: true, cells: v.cells, etaSec: v.cells * 13, problems: [] } : { ok: false, cells: 0, etaSec: 0, problems: v.problems };
}
