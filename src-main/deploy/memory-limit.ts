/**
 * The memory limit the recommended configuration's snippets carry: the answer's recommended limit
 * (analysis/sizing.ts: the peak with headroom, or the smallest clean cap when the matrix saw that
 * much fail), with its rule in words. This is the one place the snippets take it from. Without a
 * recorded peak there is no recommended limit, and the snippets carry the memory cap the
 * configuration was measured under, which is what the measurement vouches for.
 */
import { memLabel } from '../analysis/group.ts';
import { recommendedMemoryLimitMb } from '../analysis/sizing.ts';
import type { Recommendation, ScopeDecision } from '../analysis/types.ts';
import { limitText } from '../analysis/words.ts';

export interface MemoryLimit {
  mb: number;
  /** The rule in words when the limit is not the measured cap; null when it is. */
  rule: string | null;
}

export function recommendedMemoryLimit(rec: Recommendation, scope: ScopeDecision): MemoryLimit {
  const k = scope.knee;
  const mb = recommendedMemoryLimitMb(rec, k.key);
  const sizing = rec.sizing?.find((s) => s.key === k.key);
  if (mb === null || !sizing) return { mb: k.memoryMb, rule: null };
  return { mb, rule: `limit ${limitText(sizing)}; measured under a ${memLabel(k.memoryMb)} cap` };
}
