// Checks that join the new dimensions with the apps and the load, so a matrix that cannot run is
// refused before the run exists (every problem at once, as the rest of validateMatrix):
// - an image app brings its own Node.js: a "node" list cannot apply to it, and it can take flags
//   only through NODE_OPTIONS (docker/node-flags.ts says which Node.js refuses there);
// - the load spreads per connection, so each replica needs at least one (load/spread.ts).
import type { Problem } from '../common/issues.ts';
import { nodeChoiceProblems } from '../docker/node-flags.ts';
import { spreadProblem } from '../load/spread.ts';
import { budgetSplits, type Dimensions } from './matrix-dimensions.ts';

export function dimensionAppProblems(
  m: Dimensions & { apps?: string[]; load?: { model: string; connections: number[] | number } },
  imageApps: Readonly<Record<string, unknown>> = {},
): Problem[] {
  const problems: Problem[] = [];
  for (const app of new Set(m.apps ?? []))
    if (app in imageApps) {
      const image = { name: app, source: { kind: 'image' } };
      // Its worker-count variable is the workers dimension's: a setting over it would fight the workers.
      const own = (imageApps[app] as { workersEnv?: string | null } | undefined)?.workersEnv;
      if (own && m.envMatrix?.[own] !== undefined)
        problems.push({
          path: `envMatrix.${own}`,
          message: `${own} is how ${app} reads its worker count: give the counts in "workers", not as a setting`,
        });
      // The version once for the app (not per version listed); the flags per set.
      for (const message of nodeChoiceProblems(image, m.node?.[0], undefined)) problems.push({ path: 'node', message });
      (m.nodeFlags ?? []).forEach((set, i) => {
        for (const message of nodeChoiceProblems(image, undefined, set))
          problems.push({ path: `nodeFlags.${i}`, message });
      });
    }
  const counts = replicaCounts(m);
  const connections = m.load ? [m.load.connections].flat() : [];
  const seen = new Set<string>();
  for (const c of connections.filter((x) => Number.isInteger(x) && x >= 1))
    for (const r of counts) {
      const message = spreadProblem(c, r);
      if (message && !seen.has(message)) {
        seen.add(message);
        problems.push({ path: 'load.connections', message });
      }
    }
  return problems;
}

/** The replica counts the cells will have (a budget's splits included). */
function replicaCounts(m: Dimensions): number[] {
  const named = (m.replicas ?? [1]).filter((r) => Number.isInteger(r) && r >= 1);
  if (!m.budget) return named;
  const out = new Set<number>();
  for (const cpu of m.budget.cpuMillicores ?? [])
    for (const mem of m.budget.memoryMb ?? [])
      for (const t of budgetSplits(m.budget, cpu, mem, m.replicas)) out.add(t.replicas);
  return [...out];
}
