/**
 * The resources the recommended configuration's snippets carry — the one place the rule lives, said
 * in every snippet's comment and quoted by docs/answer.md:
 *
 * - Memory: requests = limits = the limit a verification cell ran exactly as emitted and passed
 *   (deploy/verification.ts): it starts at the answer's recommended memory limit (analysis/size/sizing.ts:
 *   the peak with headroom, or the smallest clean cap when the matrix saw that much fail; for an
 *   auto-size run, the memory its search set) and steps up toward the largest clean cap the matrix
 *   measured. Unverified, or when nothing passed: the cap the matrix measured it under.
 * - CPU: limit = the CPU cap the configuration was measured under (never more than was measured);
 *   request = the answer's CPU request for it (the smallest CPU cap tried at the same mode, workers
 *   and memory that meets the objective, or without one holds the throughput; for an auto-size run,
 *   the cap its search found), never above the limit. Where the answer has no request for it, the
 *   request is the limit.
 *
 * A measured cell picked by hand (deploy/from-cell.ts) carries exactly its own caps, or what a
 * verification of its configuration (`rightsize verify RUN --cell N`) ran.
 */
import { recommendedCpuMillis, recommendedMemoryLimitMb } from '../analysis/size/sizing.ts';
import { limitText } from '../analysis/explain/sizing-words.ts';
import type { ConfigurationSummary, Recommendation } from '../analysis/types.ts';
import { exactCpu, memLabel } from '../common/resource-labels.ts';

export interface MemoryLimit {
  mb: number;
  /** The rule in words when the limit is not the measured cap; null when it is. */
  rule: string | null;
}

export interface CpuResources {
  /** The limit: the cap the configuration was measured under. */
  limitMillis: number;
  requestMillis: number;
  /** How the request was set, in words. */
  rule: string;
}

export function recommendedMemoryLimit(
  rec: Recommendation,
  c: Pick<ConfigurationSummary, 'key' | 'memoryMb'>,
): MemoryLimit {
  const mb = recommendedMemoryLimitMb(rec, c.key);
  if (mb === null) return { mb: c.memoryMb, rule: null };
  if (rec.search?.found && c.key === rec.search.foundKey) {
    return {
      mb,
      rule:
        rec.search.memoryFrom === 'peak'
          ? `limit ${memLabel(mb)}: the search's measured peak by the memory rule, verified by a cell at that limit`
          : `limit ${memLabel(mb)}: the search's memory bound, the most it was measured with (less was not ` +
            'shown to meet the objective)',
    };
  }
  const sizing = rec.sizing?.find((s) => s.key === c.key);
  if (!sizing) return { mb: c.memoryMb, rule: null };
  return { mb, rule: `limit ${limitText(sizing)}; measured under a ${memLabel(c.memoryMb)} cap` };
}

export function recommendedCpu(rec: Recommendation, c: Pick<ConfigurationSummary, 'key' | 'cpuMillis'>): CpuResources {
  const limit = c.cpuMillis;
  const request = recommendedCpuMillis(rec, c.key);
  const sizing = rec.sizing?.find((x) => x.key === c.key)?.cpu;
  const basis =
    rec.search?.found && c.key === rec.search.foundKey
      ? 'the smallest cap the search found meeting the objective'
      : sizing?.basis === 'pick'
        ? "the cap it was measured under and picked at (other caps are the answer's alternatives)"
        : rec.slo || rec.search
          ? 'the smallest cap tried that meets the objective'
          : 'the smallest cap tried that holds the throughput';
  if (request === null) {
    return {
      limitMillis: limit,
      requestMillis: limit,
      rule: `request = limit = ${exactCpu(limit)}, the cap it was measured under (no smaller cap was shown to do)`,
    };
  }
  if (request > limit) {
    return {
      limitMillis: limit,
      requestMillis: limit,
      rule:
        `request = limit = ${exactCpu(limit)}, the cap it was measured under: the answer's CPU request for it, ` +
        `${exactCpu(request)} (${basis}), is above that cap, and the snippet never gives more than was measured`,
    };
  }
  if (request === limit)
    return { limitMillis: limit, requestMillis: limit, rule: `request = limit = ${exactCpu(limit)}, ${basis}` };
  return {
    limitMillis: limit,
    requestMillis: request,
    rule: `request ${exactCpu(request)}, ${basis}; limit ${exactCpu(limit)}, the cap it was measured under`,
  };
}
