// A run's pick as the run lists say it (`rightsize runs`, the History page): one rule for both.
import type { RunPick } from '../model/stored.ts';
import { fmtNum, fmtUs } from './format.ts';

/** "cluster×1 on 1 CPU / 256 MB, confident"; undecided never says pick: "leading: …, undecided"; none: "—". */
export function pickText(p: RunPick | null): string {
  if (!p) return '—';
  return p.state === 'undecided' ? `leading: ${p.configuration}, undecided` : `${p.configuration}, ${p.state}`;
}

/** "≥ 78,361" when the goodput is a lower bound (the load generator or the host set the pace). */
export function pickGoodput(p: RunPick | null): string {
  if (p?.goodputRps == null) return '—';
  return `${p.lowerBound ? '≥ ' : ''}${fmtNum(p.goodputRps)}`;
}

export function pickP99(p: RunPick | null): string {
  return p?.p99Us == null ? '—' : fmtUs(p.p99Us);
}
