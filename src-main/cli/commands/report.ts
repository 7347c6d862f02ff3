import {
  DEFAULT_MARGIN_PCT,
  fmtMargin,
  fmtRatio,
  p99Short,
  parseSlo,
  recommend,
  rpsShort,
  who,
  reasoningOf,
  type ConfigurationSummary,
  type Recommendation,
  type Slo,
} from '../../analysis/index.ts';
import { cellDeploy, CellNotDeployableError, findDeployableCell, recommendedDeployOf } from '../../deploy/from-cell.ts';
import {
  deploySnippet,
  isSnippetKind,
  nothingToDeploy,
  SNIPPET_KINDS,
  snippetDeploy,
  verifyCommandOf,
  type DeployInput,
  type SnippetKind,
} from '../../deploy/snippets.ts';
import { gridCells } from '../../deploy/verification.ts';
import { rightsizeCommand } from '../invocation.ts';
import { closest } from '../../common/issues.ts';
import { htmlReport } from '../../export/html-report.ts';
import { reportBaseline } from '../../export/baseline-of.ts';
import type { GlobalOptions } from '../context.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { table } from '../format.ts';
import { getRunOrFail, withStore, writeFileOrFail } from '../run-ref.ts';
import { givenPrices, type PriceOptions } from '../prices-option.ts';

export interface ReportOptions extends GlobalOptions, PriceOptions {
  /** Write the self-contained HTML report to this file. */
  html?: string;
  /** "p99<=20ms,rps>=1000,errors<=1%". */
  slo?: string;
  /** Knee margin in percent (default 5). */
  margin?: string;
  /** Print a deploy snippet of the recommended configuration: pm2 | kubernetes | compose. */
  emit?: string;
  /** Every sentence of the answer and its methods, not only the headline and four bullets. */
  explain?: boolean;
  /**
   * With --emit: the snippet of this cell (its # in the run, as `rightsize show` lists it) instead of the
   * recommendation.
   */
  cell?: string;
}

export function parseMarginOption(text: string | undefined): number {
  if (text === undefined) return DEFAULT_MARGIN_PCT;
  const m = Number(text.trim().replace(/%$/, ''));
  if (text.trim() === '' || !Number.isFinite(m) || m < 0 || m >= 100) {
    throw new CliError(`--margin takes a percentage from 0 to below 100 (e.g. --margin 5), not "${text}".`, EXIT.usage);
  }
  return m;
}

/** What people type for a snippet kind: suggested, never taken silently (the snippet kinds stay three words). */
const EMIT_ALIASES: Record<string, SnippetKind> = {
  k8s: 'kubernetes',
  kube: 'kubernetes',
  kubectl: 'kubernetes',
  'docker-compose': 'compose',
  docker: 'compose',
  pm2s: 'pm2',
};

export function parseEmitOption(text: string | undefined): SnippetKind | undefined {
  if (text === undefined) return undefined;
  const k = text.trim().toLowerCase();
  if (!isSnippetKind(k)) {
    const guess = EMIT_ALIASES[k] ?? closest(k, SNIPPET_KINDS);
    const hint = guess ? ` Did you mean --emit ${guess}?` : '';
    throw new CliError(`--emit takes one of ${SNIPPET_KINDS.join(', ')}, not "${text}".${hint}`, EXIT.usage);
  }
  return k;
}

/** `--cell N`: a cell's # in its run (1, 2, …), only with --emit. */
export function parseCellOption(text: string | undefined, emit: SnippetKind | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (emit === undefined) throw new CliError('--cell goes with --emit: e.g. --emit kubernetes --cell 3.', EXIT.usage);
  const n = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(n) || n < 1)
    throw new CliError(
      `--cell takes a cell's number in the run (the # column of \`rightsize show\`), e.g. --cell 3, not "${text}".`,
      EXIT.usage,
    );
  return n;
}

export function parseSloOption(text: string): Slo {
  try {
    return parseSlo(text);
  } catch (e) {
    throw new CliError(`--slo: ${(e as Error).message}`, EXIT.usage);
  }
}

/**
 * The answer as the terminal shows it: the headline, at most four bullets and one table row per
 * CPU / memory pair. `explain` adds every sentence and the methods (how it was decided). An
 * auto-size run's answer is its search's (no knee table: `rightsize show` prints its path).
 */
export function formatRecommendation(rec: Recommendation, explain = false): string {
  const margin = fmtMargin(rec.marginPct);
  const head = rec.search
    ? `Answer for auto-size run ${rec.run.id} "${rec.run.name}" (objective: ${rec.search.objective}):`
    : `Answer for run ${rec.run.id} "${rec.run.name}" (knee within ${margin} % of the best):`;
  // The headline first: the pick and its state (confident / equivalent / undecided).
  const headline = rec.headline ? [`  ▶ ${rec.headline.state.toUpperCase()} — ${rec.headline.text}`] : [];
  const bullets = explain ? reasoningOf(rec.words, rec.methods) : rec.summary;
  const lines = [head, ...headline, ...bullets.map((w) => `  • ${w}`)];
  // The cost line (decide/cost.ts) when the four bullets had no room for it: what the pick costs is always said.
  const cost = (rec.costs?.cheapest ?? []).filter((k) => k.state !== 'none' && !bullets.includes(k.text));
  lines.push(...cost.map((k) => `  $ ${k.text}`));
  if (explain) for (const m of rec.methods) lines.push('', `${m.title}:`, ...wrap(m.text, 100).map((l) => `  ${l}`));
  if (rec.search) lines.push('', `The path the search took: rightsize show ${rec.run.id}`);
  else if (rec.scopes.length) {
    const multi = new Set(rec.scopes.map((s) => s.context)).size > 1;
    const rows = rec.scopes.map((s) => [
      s.label,
      ...(multi ? [s.context] : []),
      s.state,
      who(s.knee),
      rpsShort(s.knee),
      p99Short(s.knee),
      who(s.bestRps),
      fmtRatio(s.bestRps.workersPerCpu),
      who(s.lowestP99),
      [...new Set(s.bestRps.flags.map((f) => f.kind))].join(' '),
    ]);
    const head = [
      'CPU / memory',
      ...(multi ? ['workload, load'] : []),
      'state',
      `pick (knee ${margin}%)`,
      'req/s (95% CI)',
      'p99 (95% CI)',
      'best req/s',
      'workers/CPU',
      'lowest p99',
      'flags of best',
    ];
    // The seeds' question, apart from the answer: with several pairs, never a rival headline.
    const given =
      rec.scopes.length > 1
        ? ['', 'If you are given one CPU / memory pair (the answer deploys the pick above):']
        : [''];
    lines.push(...given, table(head, rows));
  }
  return `${lines.join('\n')}\n`;
}

/** Words wrapped to a width for the terminal (a method paragraph is one long line otherwise). */
function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
}

/** Where the rest of the answer is: every sentence and the methods. */
export const explainHint = (runId: number): string =>
  `Why, in full (every sentence and the method): ${rightsizeCommand()} report ${runId} --explain\n`;

const KIND_TITLES: Record<SnippetKind, string> = { pm2: 'PM2', kubernetes: 'Kubernetes', compose: 'Compose' };

/**
 * One line under the answer: whether its deploy snippets were run exactly as emitted, and how to get or verify them.
 */
export function deployStatusLine(runId: number, deploy: DeployInput | null): string {
  if (!deploy) return '';
  const rs = rightsizeCommand();
  const parts = SNIPPET_KINDS.map((k) => {
    const d = snippetDeploy(k, deploy);
    const what =
      d.state === 'verified'
        ? `verified at ${d.settings.memoryMb} MB`
        : d.state === 'fallback'
          ? `not verified (nothing passed): the ${d.settings.memoryMb} MB cap`
          : d.state === 'unverifiable'
            ? 'not verifiable (own image)'
            : 'unverified';
    return `${KIND_TITLES[k]} ${what}`;
  });
  const how = verifyCommandOf(deploy);
  const unverified = SNIPPET_KINDS.some((k) => ['unverified', 'incomplete'].includes(snippetDeploy(k, deploy).state));
  const verify = unverified && how ? ` Verify them: ${how.replace(/^rightsize\b/, rs)}` : '';
  return `\nDeploy snippets (${rs} report ${runId} --emit pm2|kubernetes|compose): ${parts.join(', ')}.${verify}\n`;
}

/**
 * `rightsize report RUN [--html FILE] [--slo …] [--margin N] [--emit pm2|kubernetes|compose [--cell N]]`: the answer as
 * text, JSON or a shareable HTML file.
 */
export function reportCommand(id: string, o: ReportOptions): Promise<number> {
  const marginPct = parseMarginOption(o.margin);
  const slo = o.slo === undefined ? undefined : parseSloOption(o.slo);
  if (o.html !== undefined && o.html.trim() === '')
    throw new CliError('--html takes a file name, e.g. --html report.html.', EXIT.usage);
  const emit = parseEmitOption(o.emit);
  const cell = parseCellOption(o.cell, emit);
  const prices = givenPrices(o); // costed at these for this report only; the run keeps its own
  return withStore(o, (store) => {
    const run = getRunOrFail(store, id);
    const samples = store.getRunSamples(run.id);
    // The answer comes from the grid: verification cells (phase 'verify') only say how its snippets ran.
    const rec = recommend(
      { ...run, cells: gridCells(run.cells) },
      {
        marginPct,
        samples,
        probe: store.getRunProbeSeconds(run.id),
        ...(slo ? { slo } : {}),
        ...(prices ? { prices } : {}),
      },
    );
    // Checked before anything is written: a run with nothing to deploy, or a cell without a measurement, changes
    // nothing.
    let deploy: DeployInput | null | undefined;
    if (emit !== undefined && cell !== undefined) {
      try {
        deploy = cellDeploy(run, findDeployableCell(run, cell, 'number'), rec, samples);
      } catch (e) {
        if (e instanceof CellNotDeployableError) throw new CliError(e.message, EXIT.usage);
        throw e;
      }
    } else if (emit !== undefined) deploy = recommendedDeployOf(run, rec);
    if (deploy === null)
      throw new CliError(
        `${nothingToDeploy(rec)} There is nothing to emit; --cell N emits a measured cell instead.`,
        EXIT.usage,
      );
    if (o.html) {
      const baseline = reportBaseline(store, run.id);
      writeFileOrFail(o.html, htmlReport(run, samples, rec, store.getRunProbeSeconds(run.id), baseline));
      process.stderr.write(`Wrote the report of run ${run.id} to ${o.html}\n`);
    }
    if (emit !== undefined && deploy) {
      process.stdout.write(deploySnippet(emit, deploy));
      // The snippet says it too; stderr tells a person at the terminal without touching what is piped.
      const d = snippetDeploy(emit, deploy);
      const how = verifyCommandOf(deploy);
      if ((d.state === 'unverified' || d.state === 'incomplete') && how !== null) {
        const verify = how.replace(/^rightsize\b/, rightsizeCommand());
        process.stderr.write(
          'Unverified: no cell has run this snippet exactly as emitted; ' +
            `it carries only the cap the matrix measured. Verify it: ${verify}\n`,
        );
      } else if (d.state === 'fallback')
        process.stderr.write(
          `Not verified: no limit tried passed; it carries the matrix's clean cap (the snippet says why).\n`,
        );
      return EXIT.ok;
    }
    if (o.json) process.stdout.write(`${JSON.stringify(rec, null, 2)}\n`);
    else if (!o.html)
      process.stdout.write(
        `${formatRecommendation(rec, Boolean(o.explain))}${deployStatusLine(run.id, recommendedDeployOf(run, rec))}` +
          (o.explain ? '' : explainHint(run.id)),
      );
    return EXIT.ok;
  });
}
