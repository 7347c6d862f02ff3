// A link (TLS, the HTTP version and its streams, a bandwidth cap) is part of a configuration's scope, so each link
// measured is a contest of its own; the answer then decides over them once (decide.ts decideWorkloads). These say
// which configurations differ only in their link.
import type { CellLoad } from '../../model/types.ts';
import type { ConfigurationSummary } from '../types.ts';

/** Every part of a load that makes its link: cleared together, what is left is the load alone. */
export const LINK: Partial<CellLoad> = {
  tls: undefined,
  protocol: undefined,
  streams: undefined,
  networkMbps: undefined,
};

/** The link of a load alone, as a key: equal for two loads measured over the same link. */
export const linkKey = (l: CellLoad): string =>
  JSON.stringify([Boolean(l.tls), l.protocol ?? null, l.protocol ? (l.streams ?? 1) : null, l.networkMbps ?? null]);

/** Everything of a configuration but the parts of its link that `link` clears: twins differ only there. */
export const twinKey = (c: ConfigurationSummary, link: Partial<CellLoad> = LINK): string =>
  JSON.stringify([
    c.app,
    c.requestSet,
    c.mode,
    c.workers,
    c.cpuMillis,
    c.memoryMb,
    c.replicas ?? 1,
    c.node ?? null,
    c.nodeFlags ?? [],
    c.envSet ?? {},
    { ...c.load, ...link },
  ]);
