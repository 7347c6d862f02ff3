// CPU in the answer's words: the deployed configuration's own cap with the other caps as
// alternatives, or for any other configuration the smallest cap that held (or met) and what the one
// below missed, with the throttling seen at its cap.
import { fmtMargin, fmtNum, fmtPct } from '../../common/format.ts';
import { cpuLabel, memLabel } from '../../common/resource-labels.ts';
import { NOT_THROTTLED_MS_PER_SEC } from '../../common/thresholds.ts';
import { ratio } from './alternatives.ts';
import { who, type WhoContext } from '../names.ts';
import { describeSlo } from '../decide/slo.ts';
import type { ConfigurationSummary, CpuSizing, Sizing, Slo } from '../types.ts';

export function cpuSentence(
  s: Sizing,
  c: ConfigurationSummary,
  slo: Slo | null,
  marginPct: number,
  ctx?: WhoContext,
): string {
  const u = s.cpu;
  const failed = u.failedAtMillis === null ? null : u.caps.find((x) => x.cpuMillis === u.failedAtMillis)!;
  let head: string;
  if (u.basis === 'pick') head = pickCpuSentence(u, c, ctx);
  else if (u.caps.length <= 1)
    head =
      `CPU: the matrix tried only ${cpuLabel(c.cpuMillis)} for ${who(c, ctx)} at ${memLabel(c.memoryMb)}, so ` +
      'nothing shows whether less would do.';
  else if (u.requestMillis === null) {
    head = slo
      ? `CPU: no CPU cap tried meets ${describeSlo(slo)} for ${who(c, ctx)} at ${memLabel(c.memoryMb)}.`
      : `CPU: no CPU cap tried holds the throughput for ${who(c, ctx)} at ${memLabel(c.memoryMb)}.`;
  } else {
    const what = slo
      ? `that meets ${describeSlo(slo)} for ${who(c, ctx)} at ${memLabel(c.memoryMb)} (on the means)`
      : `that holds the throughput of ${who(c, ctx)} at ${memLabel(c.memoryMb)}: not significantly more than ` +
        `${fmtMargin(marginPct)} % below the best over the CPU caps ` +
        `tried${u.evidence === 'means' ? ' (on the means, no interval)' : ''}`;
    head =
      `CPU: ${cpuLabel(u.requestMillis)} is the smallest request ` +
      `${what}${failed ? `; at ${cpuLabel(failed.cpuMillis)}: ${failed.miss}` : ''}.`;
  }
  if (u.throttledMsPerSec === null) return head;
  const share = u.throttledShare === null ? '' : ` (${fmtPct(u.throttledShare * 100)} of CFS periods)`;
  const thr =
    u.throttledMsPerSec < NOT_THROTTLED_MS_PER_SEC
      ? 'was not throttled'
      : `was throttled ${fmtNum(u.throttledMsPerSec)} ms per second${share}`;
  return `${head} At its ${cpuLabel(c.cpuMillis)} cap it used ${fmtPct(u.cpuPctOfCap!)} of the cap and ${thr}.`;
}

/**
 * The deployed configuration's CPU is its own cap; every other cap tried for the same shape is said
 * as an alternative with what it holds for what it costs ("Alternative: 1 CPU would hold …").
 */
function pickCpuSentence(u: CpuSizing, c: ConfigurationSummary, ctx?: WhoContext): string {
  const head = `CPU: ${cpuLabel(c.cpuMillis)}, the cap ${who(c, ctx)} was measured under and picked at.`;
  const times = ratio;
  const alt = u.caps
    .filter((x) => x.cpuMillis !== c.cpuMillis && x.miss === null && x.rps !== null && c.rps)
    .map(
      (x) =>
        `${cpuLabel(x.cpuMillis)} would hold ${fmtNum(x.rps!)} req/s (${times(x.rps! / c.rps!.mean)} the goodput ` +
        `for ${times(x.cpuMillis / c.cpuMillis)} the CPU)`,
    );
  return alt.length ? `${head} Alternative${alt.length > 1 ? 's' : ''}: ${alt.join('; ')}.` : head;
}
