// Where a cell's Node.js flags go so that every process of it runs with them. NODE_OPTIONS reaches
// every node process the container starts (cluster workers, PM2's instances, an app's own children,
// an image's command) but Node refuses some flags there; those go on the first process's command
// line, which cluster workers inherit (execArgv) and PM2 hands its instances (--node-args).
import { nodeSpecProblem } from './node-dist.ts';
import { ownCommand } from '../apps/catalog.ts';

export interface PlacedFlags {
  /** For NODE_OPTIONS. */
  env: string[];
  /** For the command line (`node FLAGS launcher`), and PM2's --node-args. */
  argv: string[];
}

/** Node's own list of what NODE_OPTIONS accepts (V8 flags such as --max-semi-space-size among them). */
const NODE_ALLOWED: ReadonlySet<string> = process.allowedNodeEnvironmentFlags;

/** A flag's name: "--max-semi-space-size=32" → "--max-semi-space-size". */
const nameOf = (flag: string): string => flag.split('=')[0]!;

/**
 * Splits `flags` between NODE_OPTIONS and the command line. A token that is not a flag ("2000"
 * after "--stack-size") is the previous flag's value and goes where it goes.
 */
export function placeNodeFlags(flags: readonly string[], allowed: ReadonlySet<string> = NODE_ALLOWED): PlacedFlags {
  const placed: PlacedFlags = { env: [], argv: [] };
  let last: string[] = placed.argv;
  for (const f of flags) {
    if (f.startsWith('-')) last = allowed.has(nameOf(f)) ? placed.env : placed.argv;
    last.push(f);
  }
  return placed;
}

/**
 * What stops a cell's Node.js version or flags, in words, for an app of this kind; empty when
 * nothing does. The matrix's validation calls this for every app × node × flags it expands.
 */
export function nodeChoiceProblems(
  app: { name: string; source: { kind: string } },
  node: string | undefined,
  flags: readonly string[] | undefined,
  allowed: ReadonlySet<string> = NODE_ALLOWED,
): string[] {
  const problems: string[] = [];
  if (node !== undefined) {
    const p = nodeSpecProblem(node);
    if (p) problems.push(p);
    else if (ownCommand(app.source))
      problems.push(
        `app ${app.name} runs its own image; its Node.js version is its image's: run it without "node", ` +
          "or build it on Rightsize's base (a project folder, `--base rightsize`) for each version",
      );
  }
  for (const f of flags ?? []) {
    if (/\s/.test(f) || !f.startsWith('-'))
      problems.push(`${JSON.stringify(f)} is not one Node.js flag: give each flag with its value as "--name=value"`);
  }
  const refused = placeNodeFlags(flags ?? [], allowed).argv.filter((f) => f.startsWith('-'));
  if (ownCommand(app.source) && refused.length)
    problems.push(
      `app ${app.name} runs its own image's command: Rightsize can give it flags only through ` +
        `NODE_OPTIONS, and Node.js refuses ${refused.join(', ')} there`,
    );
  return problems;
}
