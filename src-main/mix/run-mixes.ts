// The mixes a run's cells sent, for the readers that show them beside the routes counted (the run page,
// the HTML report): a matrix request set's, else the app's as the run kept it.
import type { MixEntry } from '../model/requests.ts';
import type { RunDetail } from '../model/stored.ts';

export interface RunMix {
  /** "shop", or "shop [checkout]" for a matrix request set. */
  who: string;
  mix: MixEntry[];
  /** The cells that sent it and counted routes. */
  cellIds: number[];
}

/** Only cells that counted two or more routes: a single request needs no table. */
export function runMixes(run: RunDetail): RunMix[] {
  const apps = run.apps as ({ name?: unknown; requests?: MixEntry[] } | null)[];
  const out = new Map<string, RunMix>();
  for (const c of run.cells) {
    if (!c.load?.routes?.length) continue;
    const mix = c.config.requests?.requests ?? apps.find((a) => a?.name === c.config.app)?.requests;
    if (!mix?.length) continue;
    const who = c.config.requests ? `${c.config.app} [${c.config.requests.name}]` : c.config.app;
    const known = out.get(who);
    if (known) known.cellIds.push(c.id);
    else out.set(who, { who, mix, cellIds: [c.id] });
  }
  return [...out.values()];
}
