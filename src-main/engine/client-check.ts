// The load side's verdict, checked from the server side (issue 24): a load thread at its ceiling says
// the client *may* have set the pace. The runtime probe can say whether the server had headroom. If
// every serving event loop was at its ceiling too (or the container was throttled), both sides were
// saturated and the goodput is about what the server gives: a measurement, not a lower bound. The
// checked load is evidence; the cell's bottleneck is decided from it once (common/bottleneck.ts).
import { runtimeSummary, serverAgreesClientBound } from '../analysis/explain/causes.ts';
import type { CellProbe } from '../model/probe.ts';
import type { CellConfig, LoadResult, StatsSummary } from '../model/types.ts';
import { fmtPct } from '../common/format.ts';

/** The load with its client-bound verdict overruled where the probe saw the server at its ceiling too. */
export function checkClientBound(
  cfg: CellConfig,
  load: LoadResult,
  probe: CellProbe | undefined,
  stats: StatsSummary | undefined,
): LoadResult {
  if (!load.clientBound || !probe?.seconds?.length) return load;
  const s = runtimeSummary([
    {
      config: cfg,
      samples: [],
      probe: probe.seconds.filter((x) => !x.warmup),
      stats: stats ?? null,
      load,
    },
  ]);
  if (!s || serverAgreesClientBound(s) !== false) return load;
  const loopsBusy = `the server's event loops were busy ${fmtPct(s.elu * 100)}`;
  const share = s.throttledShare !== null ? ` in ${fmtPct(s.throttledShare * 100)} of periods` : '';
  const throttled = s.throttled ? ` and throttled${share}` : '';
  const { clientBoundReason: _reason, ...rest } = load;
  return {
    ...rest,
    clientBound: false,
    clientBoundOverruled:
      `a load thread was at its ceiling (${load.clientBoundReason ?? 'the load generator was saturated'}), but ` +
      `${loopsBusy}${throttled}: both sides were saturated, so this goodput is the server's, not a lower bound`,
  };
}
