import type { LoadResult } from '../model/types.ts';
import { median } from './median.ts';

/**
 * The share of a cell's bandwidth cap (each replica its own: R replicas, R caps) its responses carried, as the load
 * side counted them: the median measured second, so a second the host took from the sender (the bucket's unused
 * tokens are lost) does not hide the link's pace; the mean where a result has no seconds (stored before them).
 */
export function linkShare(
  load: Pick<LoadResult, 'bytesPerSec' | 'replicaRequests' | 'perSecondBytes'>,
  networkMbps: number,
): { mbps: number; cap: number; share: number; fromSeconds: boolean } {
  const cap = networkMbps * (load.replicaRequests?.length ?? 1);
  const seconds = load.perSecondBytes?.length ? load.perSecondBytes : [load.bytesPerSec];
  const mbps = (median(seconds) * 8) / 1e6;
  return { mbps, cap, share: mbps / cap, fromSeconds: seconds.length > 1 };
}
