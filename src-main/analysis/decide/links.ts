// A link (TLS and whether its sessions resume, the HTTP version and its streams, a bandwidth cap) is part of a
// configuration's scope, so each link measured is a contest of its own; the answer then decides over them once
// (decide.ts decideWorkloads). These say which configurations differ only in their link.
import type { CellLoad } from '../../model/types.ts';
import type { ConfigurationSummary, ScopeDecision } from '../types.ts';

/** Every part of a load that makes its link: cleared together, what is left is the load alone. */
export const LINK: Partial<CellLoad> = {
  tls: undefined,
  tlsResume: undefined,
  protocol: undefined,
  streams: undefined,
  networkMbps: undefined,
};

/** The link of a load alone, as a key: equal for two loads measured over the same link. */
export const linkKey = (l: CellLoad): string =>
  JSON.stringify([
    Boolean(l.tls),
    l.protocol ?? null,
    l.protocol ? (l.streams ?? 1) : null,
    l.networkMbps ?? null,
    ...(l.tlsResume ? ['resume'] : []),
  ]);

/** What a configuration deploys: twins over other links share it (summaries carry runtime parts only when set). */
const DEPLOYED: (keyof ConfigurationSummary)[] = [
  'app',
  'requestSet',
  'mode',
  'workers',
  'cpuMillis',
  'memoryMb',
  'replicas',
  'node',
  'nodeFlags',
  'envSet',
];

/** Everything of a configuration but the parts of its link that `link` clears: twins differ only there. */
export const twinKey = (c: ConfigurationSummary, link: Partial<CellLoad> = LINK): string =>
  JSON.stringify([...DEPLOYED.map((f) => c[f] ?? null), { ...c.load, ...link }]);

/**
 * The other links' own decisions beside the deployed configuration, split by whether each picked (or, undecided, leads
 * with) it too (`same`: it holds over that link as well) or another configuration (`other`: that link's alternative).
 */
export function otherLinks(
  decision: Pick<ScopeDecision, 'links'> | null,
  pick: ConfigurationSummary,
): { same: ScopeDecision[]; other: ScopeDecision[] } {
  const others = (decision?.links ?? []).filter((d) => linkKey(d.load) !== linkKey(pick.load));
  const same = others.filter((d) => twinKey(d.knee) === twinKey(pick));
  return { same, other: others.filter((d) => !same.includes(d)) };
}
