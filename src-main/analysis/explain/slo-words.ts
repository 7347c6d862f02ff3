// The sentences about the service-level objective: the cheapest configuration meeting it and how
// sure that is, or the closest one and by how much it missed.
import { fmtNum, fmtPct, fmtUs } from '../../common/format.ts';
import { pairLabel } from '../../common/resource-labels.ts';
import { joinAnd } from '../../common/text.ts';
import { loadLabel, workloadLabel } from '../decide/group.ts';
import { caveats } from './phrases.ts';
import { who } from '../names.ts';
import { describeSlo } from '../decide/slo.ts';
import type { Slo, SloCheck, SloOutcome } from '../types.ts';

function checkText(k: SloCheck): string {
  switch (k.criterion) {
    case 'p99':
      return (
        `p99 ${fmtUs(k.value * 1000)}, ${fmtPct(k.miss * 100)} over the ` +
        `${fmtNum(k.limit, k.limit % 1 ? 2 : 0)} ms limit`
      );
    case 'rps':
      return `${fmtNum(k.value)} req/s, ${fmtPct(k.miss * 100)} short of ${fmtNum(k.limit)}`;
    case 'errors':
      return `${fmtPct(k.value)} of requests failed, above the ${fmtPct(k.limit)} limit`;
  }
}

export function sloSentences(o: SloOutcome, slo: Slo, withWorkload: boolean, withLoad: boolean): string[] {
  const forWhat = withWorkload ? ` for ${workloadLabel(o.app, o.requestSet)}` : '';
  const c = o.met ?? o.closest!;
  const on = `${who(c)} on ${pairLabel(c.cpuMillis, c.memoryMb)}${withLoad ? ` at ${loadLabel(c.load)}` : ''}`;
  const values = `p99 ${fmtUs(c.p99Us!.mean)}, ${fmtNum(c.rps!.mean)} req/s, ${fmtPct(c.errorPct!)} errors`;
  if (!o.met) {
    const missed = o.checks.filter((k) => !k.ok).map(checkText);
    return [`No configuration meets ${describeSlo(slo)}${forWhat}. Closest: ${on} (${c.label}) — ${joinAnd(missed)}.`];
  }
  const out = [
    `Cheapest configuration meeting ${describeSlo(slo)}${forWhat}: ${on} (${values}; ${o.meeting} of ` +
      `${o.considered} configurations meet it).`,
  ];
  // A zero rps floor is "no limit": a wide interval dipping below 0 says nothing.
  const unsure = o.checks.filter((k) => k.sure === false && k.limit > 0);
  if (c.n < 2 || !c.rps!.ci) {
    out.push(
      c.rps!.intervalFrom === 'batch-means'
        ? 'That ran once: its intervals come from its own seconds, which cannot see run-to-run variation; add ' +
            'repetitions before relying on it.'
        : c.n > 1
          ? `That rests on ${c.n} repetitions: too few repetitions to bound, so no confidence interval; add ` +
            'repetitions before relying on it.'
          : 'That is a single sample: no confidence interval; add repetitions before relying on it.',
    );
  } else if (unsure.length)
    out.push(
      'It meets it on the mean only: its 95 % interval crosses the ' +
        `${joinAnd(unsure.map((k) => k.criterion))} limit, so it may not hold.`,
    );
  else out.push('Its 95 % intervals are within the limits too.');
  const cav = caveats(c);
  if (cav.length) out.push(`Caveat for ${who(c)} on ${pairLabel(c.cpuMillis, c.memoryMb)}: ${cav.join('; ')}.`);
  return out;
}
