// One answer across CPU caps, on the real engine through the real CLI: a matrix with two CPU caps
// (json under node:cluster, 1 worker, 0.5 and 1 CPU, 256 MB, 3 repetitions) is decided across
// both CPU / memory pairs on goodput per dollar (analysis/decide/decide.ts decideWorkloads), and every output
// names that one configuration at its own cap: the headline (text and key), History's pick
// (`rightsize runs --json`, analysis/decide/run-pick.ts runPickOf), `rightsize report RUN --json`, the summary's
// "Give it …" bullet, what the snippets deploy (recommendedDeploy's config) and every snippet's text
// (`report --emit` for each kind), and the HTML report's headline, summary and snippets. No CPU figure
// other than the pick's appears in the headline or a snippet unless labelled: an alternative, "if you
// are given", "measured under a … cap", "would hold", the pairs the decision spanned, or a rival named
// with its own cost per million requests.
//
// The same stored run is then answered at two other sets of prices (CPU nearly free; CPU dear), which
// may move the pick to the other cap, and the same checks hold there too.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cpuLabel, exactCpu, recommend, who, type Recommendation } from '../../src-main/analysis/index.ts';
import { onWhat, whoContext } from '../../src-main/analysis/names.ts';
import { runPickOf } from '../../src-main/analysis/decide/run-pick.ts';
import { answerKey } from '../../src-main/analysis/size/sizing.ts';
import type { ConfigurationSummary } from '../../src-main/analysis/types.ts';
import type { Prices } from '../../src-main/common/cost.ts';
import { k8sCpu } from '../../src-main/common/k8s-quantity.ts';
import { capitalize } from '../../src-main/common/text.ts';
import { recommendedDeployOf } from '../../src-main/deploy/from-cell.ts';
import {
  composeCpus,
  deploySnippet,
  recommendedDeploy,
  SNIPPET_KINDS,
  type DeployInput,
  type SnippetKind,
} from '../../src-main/deploy/snippets.ts';
import { gridCells } from '../../src-main/deploy/verification.ts';
import { reportBaseline } from '../../src-main/export/baseline-of.ts';
import { htmlReport } from '../../src-main/export/html-report.ts';
import type { RunPick } from '../../src-main/model/stored.ts';
import { Store } from '../../src-main/store/index.ts';
import { cli, tempDir } from '../helpers/cli.ts';
import { requireDocker } from '../helpers/docker.ts';
import { unescape } from '../helpers/report.ts';

// 2 configurations × 3 repetitions of 3 s, no warm-up: six short cells, no settling, no verification. The
// pairs' own rivals and their words are unit-tested (answer-consistency.test.ts); this is the real path.
const MATRIX = {
  name: 'one answer, two caps',
  apps: ['json'],
  modes: ['cluster'],
  workers: [1],
  cpuMillicores: [500, 1000],
  memoryMb: [256],
  load: { model: 'closed', connections: [20] },
  durationSec: 3,
  warmupSec: 0,
  repetitions: 3,
  order: 'shuffle',
  seed: 11,
  settleBudgetPct: 0,
  verify: false,
};

let dir = '';
let db = '';
let runId = 0;
/** The answer as `rightsize run --json` printed it. */
let runRec: Recommendation;

beforeAll(async () => {
  await requireDocker();
  dir = tempDir('rightsize-one-answer-');
  db = path.join(dir, 'history.db');
  const config = path.join(dir, 'matrix.json');
  writeFileSync(config, JSON.stringify(MATRIX));
  const started = Date.now();
  const r = await cli(['--db', db, '--json', 'run', '--config', config]);
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as { runId: number; recommendation: Recommendation };
  runId = out.runId;
  runRec = out.recommendation;
  console.log(`the two-cap matrix took ${((Date.now() - started) / 1000).toFixed(0)} s`);
}, 300_000);

/** Everything that names the answer's configuration, gathered from one place or another. */
interface Outputs {
  /** Where these came from, for the failure messages. */
  where: string;
  rec: Recommendation;
  /** History's pick of the run. */
  history: RunPick | null;
  deploy: DeployInput;
  snippets: Record<SnippetKind, string>;
  html: string;
}

/** A CPU figure as the answer writes it, in millicores: "0.5 CPU", "2 CPUs", "375m CPU", "500m" (k8s), cpus: "0.5", "500m/256MB". */
const CPU_FIGURES: { re: RegExp; millis: (m: RegExpExecArray) => number }[] = [
  { re: /(\d+(?:\.\d+)?) CPUs?\b/g, millis: (m) => Math.round(Number(m[1]) * 1000) },
  { re: /\b(\d+)m CPU/g, millis: (m) => Number(m[1]) },
  { re: /\bcpu: "(\d+)m"/g, millis: (m) => Number(m[1]) },
  { re: /\bcpus: "(\d+(?:\.\d+)?)"/g, millis: (m) => Math.round(Number(m[1]) * 1000) },
  { re: /\b(\d+)m\/\d+(?:MB|GB)\b/g, millis: (m) => Number(m[1]) },
];

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The CPU figures of `text` that are not `pickMillis` and stand unlabelled: what is left once the labelled
 * phrases are taken out — a sentence starting "Alternative" or "If you are given", "measured under a … cap",
 * "… would hold", the pairs the decision spanned (`scopes`), and a rival named with its own cost per million
 * requests ("on 1 CPU / 256 MB (≤ $0.0048 per million requests at ≥ 1,901 req/s)").
 */
function unlabelledCpus(text: string, pickMillis: number, scopes: readonly string[]): string[] {
  let rest = text;
  for (const s of scopes) rest = rest.split(s).join(' ⟨pairs⟩ ');
  const LABELLED = [
    /\bAlternatives?\b.*?(?:\.(?=\s|$)|$)/gms,
    /\bIf you are given\b.*?(?:\.(?=\s|$)|$)/gims,
    /\bmeasured under an? [^,;()]*? cap\b/g,
    /\d+(?:\.\d+)? CPUs? would hold\b/g,
    /\bon \d+(?:\.\d+)? CPUs? \/ \d+ [MG]B \([^()]*per million requests[^()]*\)/g,
  ];
  for (const re of LABELLED) rest = rest.replace(re, ' ⟨labelled⟩ ');
  const out: string[] = [];
  for (const { re, millis } of CPU_FIGURES) {
    for (const m of rest.matchAll(re)) {
      if (millis(m as RegExpExecArray) === pickMillis) continue;
      const at = m.index ?? 0;
      out.push(`"${m[0]}" in "…${rest.slice(Math.max(0, at - 60), at + m[0].length + 30)}…"`);
    }
  }
  return out;
}

/** The pick of the answer: the configuration its headline names. */
function pickOf(rec: Recommendation): ConfigurationSummary {
  const c = rec.configurations.find((x) => x.key === rec.headline?.key);
  expect(c, `the headline names a configuration of the run: ${JSON.stringify(rec.headline)}`).toBeDefined();
  return c!;
}

/** The HTML report's text of one element (the first with this opening tag), unescaped. */
function htmlOf(html: string, open: RegExp): string | null {
  const m = new RegExp(`${open.source}([\\s\\S]*?)</(?:p|pre|ul)>`).exec(html);
  return m ? unescape(m[1]!) : null;
}

/** Every output names the pick, at its own CPU cap; anything else with a CPU figure is labelled. */
function expectOneAnswer(o: Outputs): ConfigurationSummary {
  const { rec, where } = o;
  const h = rec.headline!;
  expect(h, `${where}: a headline`).toBeTruthy();
  const pick = pickOf(rec);
  const cpu = pick.cpuMillis;

  // The decision is across both pairs, and it is the pick.
  const decision = rec.decisions?.[0];
  expect(decision, `${where}: a decision across the pairs`).toBeDefined();
  expect(decision!.pairs, `${where}: the decision spans both CPU / memory pairs`).toBe(2);
  expect(rec.scopes.map((s) => s.cpuMillis).sort((a, b) => a - b)).toEqual([500, 1000]);
  expect(decision!.knee.key, `${where}: the decision's pick is the headline's`).toBe(h.key);
  expect(decision!.state).toBe(h.state);
  expect(answerKey(rec), `${where}: answerKey`).toBe(h.key);
  expect(h.contenders[0], `${where}: the headline's first contender is its pick`).toBe(h.key);
  const scopes = [decision!.label];

  // The headline names the pick first, on its own pair, and no other cap unlabelled.
  const ctx = whoContext([pick, ...decision!.candidates.map((k) => rec.configurations.find((x) => x.key === k)!)]);
  const named = `${who(pick, ctx)} on ${onWhat(pick)}`;
  const first = /^(?:Pick: |Undecided across .+? between )(.+? on \d+(?:\.\d+)? CPUs? \/ \d+ [MG]B)/.exec(h.text);
  expect(first?.[1], `${where}: the headline's first configuration: ${h.text}`).toBe(named);
  expect(h.text.startsWith(h.state === 'undecided' ? 'Undecided' : 'Pick: '), `${where}: ${h.text}`).toBe(true);
  expect(unlabelledCpus(h.text, cpu, scopes), `${where}: headline ${h.text}`).toEqual([]);
  // A confident headline across pairs says the pick has the lowest cost per million requests: the numbers agree.
  if (h.state === 'confident' && /the lowest cost per million requests/.test(h.text)) {
    const per = new Map((rec.costs?.configurations ?? []).map((k) => [k.key, k.perMillion]));
    const mine = per.get(pick.key)!;
    for (const k of decision!.candidates) expect(mine, `${where}: ${k} per million`).toBeLessThanOrEqual(per.get(k)! + 1e-12);
  }

  // The cost line reads the same contest: its state is the decision's, and it never calls the pick costlier.
  const line = rec.costs?.cheapest[0];
  const costState = { confident: 'decided', equivalent: 'equivalent', undecided: 'undecided' }[h.state];
  if (line && line.state !== 'only-one') expect(line.state, `${where}: cost line ${line.text}`).toBe(costState);
  if (line?.state === 'decided') expect(line.cheapest, `${where}: cost line ${line.text}`).toBe(pick.key);

  // The summary: its first bullet is the pick on its pair; "Give it …" gives the pick's own cap and the rule's memory.
  expect(rec.summary[0], `${where}: summary`).toMatch(new RegExp(`^${escapeRe(capitalize(named))}: `));
  const give = rec.summary.map((b) => /^Give it (?:a memory limit of (\d+) MB and )?(\d+(?:\.\d+)? CPUs?)\b/.exec(b)).find(Boolean);
  expect(give, `${where}: a "Give it …" bullet in ${JSON.stringify(rec.summary)}`).toBeTruthy();
  expect(give![2], `${where}: the resources bullet's CPU: ${give!.input}`).toBe(cpuLabel(cpu));
  expect(unlabelledCpus(give!.input, cpu, scopes), `${where}: the resources bullet ${give!.input}`).toEqual([]);
  expect(Number(give![1]), `${where}: the resources bullet's memory limit is the rule's`).toBe(o.deploy.config.ruleMemoryMb);
  const sizing = rec.sizing?.find((s) => s.key === pick.key);
  expect(sizing?.recommended).toBe(true);
  expect(sizing?.cpu.requestMillis, `${where}: the sizing's CPU request is the pick's own cap`).toBe(cpu);
  expect((rec.sizing ?? []).filter((s) => s.recommended).map((s) => s.key), `${where}: one recommended`).toEqual([pick.key]);

  // History's pick.
  expect(o.history, `${where}: History's pick`).toEqual(runPickOf(rec));
  expect(o.history).toMatchObject({ state: h.state, app: 'json', mode: pick.mode, workers: pick.workers, cpuMillis: cpu, memoryMb: pick.memoryMb });
  expect(o.history!.configuration).toBe(`${pick.mode}×${pick.workers} on ${onWhat(pick)}`);

  // What the snippets deploy.
  expect(o.deploy.config, `${where}: recommendedDeploy's config`).toMatchObject({
    app: 'json',
    mode: pick.mode,
    workers: pick.workers,
    cpuMillis: cpu,
    cpuRequestMillis: cpu,
    memoryMb: pick.memoryMb,
  });
  expect(recommendedDeploy(rec)!.config, `${where}: recommendedDeploy and recommendedDeployOf agree`).toEqual(o.deploy.config);

  // Every snippet's text: its first line names the pick at its own CPU, its CPU line says request = limit = that cap.
  const head = `json, ${pick.mode} × ${pick.workers}, ${exactCpu(cpu)}, measured under a ${pick.memoryMb} MB cap`;
  for (const kind of SNIPPET_KINDS) {
    const text = o.snippets[kind];
    const what = `${where}: the ${kind} snippet\n${text}`;
    expect(text.split('\n')[0], what).toContain(head);
    // Its own cap, said as picked at, or (where that cap is also the smallest that holds the throughput) as that.
    expect(text, what).toContain(`CPU: request = limit = ${exactCpu(cpu)}, `);
    expect(unlabelledCpus(text, cpu, scopes), what).toEqual([]);
  }
  const pm2 = o.snippets.pm2;
  expect(pm2).toContain(`instances: ${pick.workers},`);
  expect(pm2).toContain('exec_mode: "cluster",');
  const k8s = parse(o.snippets.kubernetes) as { resources: { requests: { cpu: string }; limits: { cpu: string } }; env: { name: string; value: string }[] };
  expect(k8s.resources.limits.cpu, `${where}: k8s CPU limit`).toBe(k8sCpu(cpu));
  expect(k8s.resources.requests.cpu, `${where}: k8s CPU request`).toBe(k8sCpu(cpu));
  expect(k8s.env.find((e) => e.name === 'WEB_CONCURRENCY')?.value).toBe(String(pick.workers));
  const compose = parse(o.snippets.compose) as {
    services: Record<string, { environment: Record<string, string>; deploy: { resources: { limits: { cpus: string }; reservations: { cpus: string } } } }>;
  };
  const service = compose.services.json!;
  expect(service.deploy.resources.limits.cpus, `${where}: compose CPU limit`).toBe(composeCpus(cpu));
  expect(service.deploy.resources.reservations.cpus, `${where}: compose CPU reservation`).toBe(composeCpus(cpu));
  expect(service.environment.WEB_CONCURRENCY).toBe(String(pick.workers));

  // The HTML report: the same headline, summary and snippets.
  const headline = /<p class="headline" data-state="([a-z]+)"><span [^>]*>[^<]*<\/span> ([^<]*)<\/p>/.exec(o.html);
  expect(headline, `${where}: the HTML report's headline`).not.toBeNull();
  expect(headline![1]).toBe(h.state);
  expect(unescape(headline![2]!), `${where}: the HTML report's headline`).toBe(h.text);
  const items = [...(htmlOf(o.html, /<ul class="answer summary">/) ?? '').matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) => unescape(m[1]!));
  expect(items, `${where}: the HTML report's summary`).toEqual(rec.summary);
  for (const kind of SNIPPET_KINDS)
    expect(htmlOf(o.html, new RegExp(`<pre class="snippet" data-kind="${kind}">`)), `${where}: the HTML report's ${kind} snippet`).toBe(o.snippets[kind]);
  return pick;
}

/** The answer of the stored run as `report` works it out (the grid's cells; at `prices` when given), and what it deploys. */
function answerAt(prices?: Prices): Omit<Outputs, 'history' | 'where'> & { pick: RunPick | null } {
  const store = Store.open(db);
  try {
    const run = store.getRun(runId)!;
    const samples = store.getRunSamples(runId);
    const probe = store.getRunProbeSeconds(runId);
    const rec = recommend({ ...run, cells: gridCells(run.cells) }, { samples, probe, ...(prices ? { prices } : {}) });
    const deploy = recommendedDeployOf(run, rec)!;
    const snippets = Object.fromEntries(SNIPPET_KINDS.map((k) => [k, deploySnippet(k, deploy)])) as Record<SnippetKind, string>;
    const html = htmlReport(run, samples, rec, probe, reportBaseline(store, runId));
    return { rec, deploy, snippets, html, pick: runPickOf(rec) };
  } finally {
    store.close();
  }
}

describe('one answer across two CPU caps', () => {
  it('the headline, History, report --json, the resources bullet, the snippets and the HTML report name one configuration at its own cap', async () => {
    const report = await cli(['--db', db, '--json', 'report', String(runId), '--html', path.join(dir, 'report.html')]);
    expect(report.code, report.stderr).toBe(0);
    const rec = JSON.parse(report.stdout) as Recommendation;
    // `run --json` and `report --json` give the same answer.
    expect(rec.headline).toEqual(runRec.headline);
    expect(rec.summary).toEqual(runRec.summary);
    expect(rec.decisions?.[0]?.knee.key).toBe(runRec.decisions?.[0]?.knee.key);

    const runs = await cli(['--db', db, '--json', 'runs']);
    expect(runs.code, runs.stderr).toBe(0);
    const history = (JSON.parse(runs.stdout) as { runs: { id: number; pick: RunPick | null }[] }).runs.find((r) => r.id === runId)!.pick;

    const snippets = {} as Record<SnippetKind, string>;
    for (const kind of SNIPPET_KINDS) {
      const e = await cli(['--db', db, 'report', String(runId), '--emit', kind]);
      expect(e.code, e.stderr).toBe(0);
      snippets[kind] = e.stdout;
    }
    // What the snippets deploy, as report --emit works it out; its texts are the CLI's.
    const mine = answerAt();
    expect(mine.rec.headline).toEqual(rec.headline);
    for (const kind of SNIPPET_KINDS) expect(deploySnippet(kind, mine.deploy)).toBe(snippets[kind]);

    const html = readFileSync(path.join(dir, 'report.html'), 'utf8');
    const pick = expectOneAnswer({ where: 'the run at its own prices', rec, history, deploy: mine.deploy, snippets, html });
    console.log(
      `pick at the run's prices: ${pick.label} (${rec.headline!.state}); goodput ` +
        rec.configurations.map((c) => `${c.label} ${Math.round(c.rps!.mean)}`).join(', ') +
        `\nheadline: ${rec.headline!.text}\nsummary:\n  ${rec.summary.join('\n  ')}\nsnippet (kubernetes):\n${snippets.kubernetes}`,
    );
  });

  it('answered at other prices (CPU nearly free, CPU dear), every output still names the one configuration at its cap', () => {
    const picks: string[] = [];
    for (const [what, prices] of [
      ['CPU nearly free', { cpuHour: 0.0001, gbHour: 0.5, replicaHour: 0 }],
      ['CPU dear', { cpuHour: 5, gbHour: 0.0001, replicaHour: 0 }],
    ] as const) {
      const a = answerAt(prices);
      const pick = expectOneAnswer({ where: `the run at ${what}`, rec: a.rec, history: a.pick, deploy: a.deploy, snippets: a.snippets, html: a.html });
      picks.push(`${what}: ${pick.label} (${a.rec.headline!.state})`);
    }
    console.log(`picks at other prices: ${picks.join('; ')}`);
  });
});
