// A matrix checked as the engine checks it, for tests: its problems as "path: message" lines, or the
// matrix it becomes. Either throws when the other was expected.
import { validateMatrix, type HostLimits, type Matrix } from '../../src-main/engine/matrix.ts';

export function matrixCheck(host: HostLimits): { problems: (input: unknown) => string[]; valid: (input: unknown) => Matrix } {
  const lines = (v: { problems: { path: string; message: string }[] }): string[] => v.problems.map((p) => `${p.path}: ${p.message}`);
  return {
    problems: (input) => {
      const v = validateMatrix(input, host);
      if (v.ok) throw new Error('expected problems');
      return lines(v);
    },
    valid: (input) => {
      const v = validateMatrix(input, host);
      if (!v.ok) throw new Error(lines(v).join('\n'));
      return v.matrix;
    },
  };
}
