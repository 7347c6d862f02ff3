import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { recommend, recommendedMemoryLimitMb } from '../../src-main/analysis/index.ts';
import { parseEmitOption } from '../../src-main/cli/commands/report.ts';
import { CliError } from '../../src-main/cli/exit-codes.ts';
import {
  composeSnippet, deploySnippet, kubernetesSnippet, maxMemoryRestartMb, maxOldSpaceMb, pm2Snippet, recommendedDeploy, SNIPPET_KINDS, WORKERS_ENV, type DeployInput,
} from '../../src-main/deploy/snippets.ts';
import { deployedSettings } from '../../src-main/deploy/settings.ts';
import { htmlReport } from '../../src-main/export/html-report.ts';
import { escapeXml } from '../../src-main/export/svg-chart.ts';
import { composeProblems, kubernetesContainerProblems } from '../helpers/deploy-schemas.ts';
import { cell, reps, run } from '../helpers/run-fixture.ts';

const require = createRequire(import.meta.url);
// PM2's own loader (Common.parseConfig: how `pm2 start ecosystem.config.js` reads the file) and its
// own validator (Config.validateJSON against lib/API/schema.json), from the installed package.
const pm2Common = require('pm2/lib/Common.js') as { parseConfig: (text: string, filename: string) => { apps: Record<string, unknown>[] } };
const pm2Config = require('pm2/lib/tools/Config.js') as { validateJSON: (app: Record<string, unknown>) => { errors: string[]; config: Record<string, unknown> } };

const dir = mkdtempSync(join(tmpdir(), 'rightsize-deploy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const input = (over: Partial<DeployInput['config']> = {}): DeployInput => ({
  config: { app: 'hello', mode: 'cluster', workers: 2, cpuMillis: 500, memoryMb: 256, ...over },
  provenance: {
    runId: 7, runName: 'sizing', load: { model: 'closed', connections: 20 }, goodput: { mean: 25303, low: 24060, high: 26546 }, p99Us: 2100,
    confidence: 'clear', pick: 'the knee: the fewest workers that hold the throughput',
  },
});

let fileNo = 0;
/** Loads the snippet the way PM2 loads an ecosystem file, and validates every app with PM2's schema. */
function loadWithPm2(text: string): { apps: Record<string, unknown>[]; validated: Record<string, unknown>[] } {
  const file = join(dir, `ecosystem-${fileNo++}.config.js`);
  writeFileSync(file, text);
  const conf = pm2Common.parseConfig(text, file);
  const validated = conf.apps.map((a) => {
    const { errors, config } = pm2Config.validateJSON({ ...a });
    expect(errors).toEqual([]);
    return config;
  });
  return { apps: conf.apps, validated };
}

describe('PM2 ecosystem snippet', () => {
  it('loads with PM2 and passes its schema: cluster × workers; unverified, no restart threshold or heap flag', () => {
    const text = pm2Snippet(input());
    const { apps } = loadWithPm2(text);
    expect(apps).toHaveLength(1);
    expect(apps[0]).toEqual({ name: 'hello', script: 'server.js', instances: 2, exec_mode: 'cluster' });
    expect(text).toContain('// No max_memory_restart or node_args: no cell has run them.');
    expect(text.startsWith('// Rightsize run 7 "sizing"')).toBe(true);
    expect(text.split('\n')[1]).toMatch(/^\/\/ Unverified — run `rightsize verify 7` to run it exactly as emitted/);
    expect(text).toContain('Measured under 20 connections: goodput 25,303 req/s (95 % CI 24,060–26,546), p99 2.10 ms.');
    expect(text).toContain('Confidence: clear.');
  });

  it('with thresholds (what a verification cell ran): restart and heap from each process’s share, PM2’s daemon counted; valid by PM2’s schema', () => {
    const settings = deployedSettings('pm2', input().config, 256, true);
    // 256 MB ÷ (2 instances + the daemon) = 85.3 MB each: 90 % → 76 MB restart, 75 % → 64 MB heap.
    expect(settings).toMatchObject({ mode: 'pm2', workers: 2, recycleRssMb: 76, heapMb: 64 });
    const verified = { ...input(), verification: { key: 'k', label: 'hello cluster×2', kinds: { pm2: { kind: 'pm2' as const, state: 'verified' as const, round: 'R', attempts: [], passed: null, settings, line: 'Verified: constructed.' } } } };
    const { apps, validated } = loadWithPm2(pm2Snippet(verified));
    expect(apps[0]).toMatchObject({ instances: 2, exec_mode: 'cluster', max_memory_restart: '76M', node_args: '--max-old-space-size=64' });
    expect(validated[0]!.max_memory_restart).toBe(76 * 1024 * 1024);
    expect(validated[0]!.node_args).toEqual(['--max-old-space-size=64']);
    expect(pm2Snippet(verified)).toContain("// max_memory_restart: 90 % of each process's share of the 256 MB limit (limit ÷ 3: 2 instances and PM2's own daemon).");
  });

  it('runs a single process as one cluster instance (what `pm2 start -i 1` runs), and leaves the heap flag out where V8’s default is already below the share', () => {
    const single = loadWithPm2(pm2Snippet(input({ mode: 'single', workers: 1, memoryMb: 512 }))).apps[0]!;
    expect(single).toMatchObject({ instances: 1, exec_mode: 'cluster' });
    expect(deployedSettings('pm2', { app: 'a', mode: 'single', workers: 1, cpuMillis: 1000 }, 512, true)).toMatchObject({ workers: 1, recycleRssMb: 230, heapMb: 192 });
    expect(maxOldSpaceMb(8192, 2)).toBeNull();
    expect(maxMemoryRestartMb(1024, 4)).toBe(184);
  });

  it('survives hostile names: still one valid app with the name intact', () => {
    const name = `it's "x"\n*/ process.exit(1) //`;
    const { apps } = loadWithPm2(pm2Snippet({ ...input({ app: name }), provenance: { ...input().provenance, runName: 'a\nmodule.exports = 1' } }));
    expect(apps[0]!.name).toBe(name);
  });
});

describe('Kubernetes resources snippet', () => {
  it('is a valid V1 Container fragment by the Kubernetes OpenAPI schema; requests = limits; env has the worker count', () => {
    const text = kubernetesSnippet(input({ workers: 3, cpuMillis: 1500, memoryMb: 768 }));
    expect(text.startsWith('# Rightsize run 7 "sizing"')).toBe(true);
    const spec = parse(text) as { resources: { requests: Record<string, unknown>; limits: Record<string, unknown> }; env: { name: string; value: unknown }[] };
    // Types and Quantity formats by the schema, every key by the client's V1Container model; and exactly these.
    expect(kubernetesContainerProblems(spec)).toEqual([]);
    expect(Object.keys(spec).sort()).toEqual(['env', 'resources']);
    expect(spec.resources.requests).toEqual({ cpu: '1500m', memory: '768Mi' });
    expect(spec.resources.limits).toEqual(spec.resources.requests);
    expect(spec.env).toEqual([{ name: WORKERS_ENV, value: '3' }]);
  });

  it('the schema check has teeth: a number for EnvVar.value, "256MB" or "0.5 CPU" as a quantity, a misspelt key are refused', () => {
    const ok = { resources: { limits: { cpu: '500m', memory: '256Mi' } }, env: [{ name: WORKERS_ENV, value: '2' }] };
    expect(kubernetesContainerProblems(ok)).toEqual([]);
    expect(kubernetesContainerProblems({ ...ok, env: [{ name: WORKERS_ENV, value: 2 }] })[0]).toMatch(/env\/0\/value must be string/);
    expect(kubernetesContainerProblems({ resources: { limits: { memory: '256MB' } } })[0]).toMatch(/format "quantity"/);
    expect(kubernetesContainerProblems({ resources: { requests: { cpu: '0.5 CPU' } } })[0]).toMatch(/format "quantity"/);
    expect(kubernetesContainerProblems({ env: [{ value: '2' }] })[0]).toMatch(/name/);
    // Unknown keys pass the OpenAPI schema (it has no additionalProperties: false) but not the client's model.
    expect(kubernetesContainerProblems({ resources: { limit: { cpu: '500m' } } })[0]).toMatch(/^keys the V1Container model does not have were dropped/);
    expect(kubernetesContainerProblems({ ...ok, envv: [] })[0]).toMatch(/^keys the V1Container model does not have were dropped/);
  });

  it('gives a single process one worker', () => {
    const spec = parse(kubernetesSnippet(input({ mode: 'single', workers: 1 }))) as { env: { value: string }[] };
    expect(spec.env[0]!.value).toBe('1');
    const image = parse(kubernetesSnippet(input({ mode: 'image', workers: 4 }))) as { env: { value: string }[] };
    expect(image.env[0]!.value).toBe('4'); // an own image reads its worker count from the variable
  });
});

describe('Docker Compose snippet', () => {
  it('parses as YAML: limits = reservations, cpus a numeric string, memory like 256M, the worker setting in environment', () => {
    const text = composeSnippet(input({ app: 'My App', workers: 4, cpuMillis: 500, memoryMb: 256 }));
    expect(text.startsWith('# Rightsize run 7 "sizing"')).toBe(true);
    const doc = parse(text) as { services: Record<string, { environment: Record<string, unknown>; deploy: { resources: { limits: Record<string, unknown>; reservations: Record<string, unknown> } } }> };
    expect(Object.keys(doc.services)).toEqual(['my-app']);
    const svc = doc.services['my-app']!;
    expect(svc.deploy.resources.limits).toEqual({ cpus: '0.5', memory: '256M' });
    expect(svc.deploy.resources.reservations).toEqual(svc.deploy.resources.limits);
    expect(typeof svc.deploy.resources.limits.cpus).toBe('string');
    expect(Number(svc.deploy.resources.limits.cpus)).toBe(0.5);
    expect(svc.deploy.resources.limits.memory).toMatch(/^[0-9]+M$/);
    expect(svc.environment).toEqual({ [WORKERS_ENV]: '4' });
    expect(composeProblems(doc)).toEqual([]);
  });

  it('is valid by the Compose Specification schema for every mode, and the schema refuses a misspelt key', () => {
    for (const mode of ['single', 'cluster', 'pm2', 'image'] as const) expect(composeProblems(parse(composeSnippet(input({ mode, app: 'Weird name!' }))))).toEqual([]);
    expect(composeProblems({ services: { a: { deploy: { resources: { limits: { cpu: '0.5' } } } } } }).join()).toMatch(/additional properties \(cpu\)/);
    expect(composeProblems({ services: { a: { deploy: { resources: { limits: { memory: 256 } } } } } }).join()).toMatch(/limits\.memory: must be string/);
  });
});

/** Two CPU / memory pairs; on the first, 2 workers are not clearly above 1: the knee is 1 worker. */
function fixture() {
  return run([
    ...reps({ workers: 1 }, [24100, 24600, 23900], [1790, 1850, 1700]),
    ...reps({ workers: 2 }, [24300, 24800, 24000], [2100, 2300, 2000]),
    ...reps({ workers: 1, cpu: 2000, mem: 512 }, [26000, 26200, 25900], [1500, 1550, 1480]),
    ...reps({ workers: 2, cpu: 2000, mem: 512 }, [41000, 43000, 42000], [1900, 2000, 1950]),
  ], { name: 'sizing' });
}

describe('the recommended configuration', () => {
  const r = fixture();
  const rec = recommend(r);

  it('is the answer’s decision across both pairs (the first scope’s knee here), with the run, its load and the confidence; unverified it carries the measured cap', () => {
    const d = recommendedDeploy(rec)!;
    // Two pairs: the answer decides across them on cost per million requests; here it lands on the first pair's knee.
    const scope = rec.decisions![0]!;
    expect(scope.pairs).toBe(2);
    expect(scope.state).toBe('equivalent');
    expect(scope.knee.key).toBe(rec.scopes[0]!.knee.key);
    // The answer's recommended limit: the fixture's cells peak at 40 MB, × 1.25 rounded up to 32 MB steps.
    expect(recommendedMemoryLimitMb(rec, scope.knee.key)).toBe(64);
    // One CPU cap per mode, workers and memory: the answer has no smaller request, so request = limit = the cap.
    // The memory a snippet carries unverified is the cap it was measured under; the rule's limit is where verification starts.
    expect(d.config).toEqual({ app: scope.knee.app, mode: scope.knee.mode, workers: scope.knee.workers, cpuMillis: scope.knee.cpuMillis, cpuRequestMillis: scope.knee.cpuMillis, memoryMb: scope.knee.memoryMb, ruleMemoryMb: 64 });
    expect(d.provenance.memoryRule).toBe(`limit 64 MB (peak × 1.25, rounded up to a multiple of 32 MB); measured under a ${scope.knee.memoryMb} MB cap`);
    for (const k of SNIPPET_KINDS) {
      // The rule's limit is said once, with why this snippet carries another.
      const text = deploySnippet(k, d);
      expect(text).toContain(`(the answer's memory rule gives limit 64 MB (peak × 1.25, rounded up to a multiple of 32 MB); measured under a ${scope.knee.memoryMb} MB cap: a snippet carries it once verification has run it).`);
      expect(text.split('64 MB').length - 1).toBe(1);
    }
    expect(pm2Snippet(d)).not.toContain('max_memory_restart:');
    expect(d.provenance.runId).toBe(rec.run.id);
    expect(d.provenance.load).toEqual(scope.knee.load);
    expect(d.provenance.goodput!.mean).toBeCloseTo(scope.knee.rps!.mean, 6);
    expect(d.provenance.goodput!.low).toBeCloseTo(scope.knee.rps!.ci!.low, 6);
    expect(d.provenance.pick).toBe(
      'the cheapest by the one order of cost of those within 5 % of the lowest cost per million requests of the 4 configurations measured on ' +
        '1 CPU / 256 MB and 2 CPUs / 512 MB (hello, 20 connections)',
    );
    for (const k of SNIPPET_KINDS) expect(deploySnippet(k, d)).toContain(`Rightsize run ${rec.run.id} "sizing"`);
  });

  it('carries the measured cap, and says nothing of a rule, when no peak was recorded', () => {
    const noPeak = run(fixture().cells.map((c) => ({ ...c, memMaxBytes: null, stats: null })), { name: 'sizing' });
    const r2 = recommend(noPeak);
    const d = recommendedDeploy(r2)!;
    expect(d.config.memoryMb).toBe(r2.scopes[0]!.knee.memoryMb);
    expect(d.provenance.memoryRule).toBeUndefined();
    expect(kubernetesSnippet(d)).not.toContain("answer's memory rule");
  });

  it('is null when nothing was decided (every cell OOM-killed)', () => {
    const none = recommend(run([cell({ workers: 1, status: 'oom' }), cell({ workers: 2, status: 'oom' })]));
    expect(recommendedDeploy(none)).toBeNull();
  });

  it('shows in the HTML report as three escaped <pre> blocks, after the answer', () => {
    const html = htmlReport(r, new Map(), rec);
    const d = recommendedDeploy(rec)!;
    expect(html.indexOf('<section id="deploy"><h2>Deploy it</h2>')).toBeGreaterThan(html.indexOf('<section id="answer">'));
    for (const k of SNIPPET_KINDS) expect(html).toContain(`<pre class="snippet" data-kind="${k}">${escapeXml(deploySnippet(k, d))}</pre>`);
    const none = recommend(run([cell({ workers: 1, status: 'oom' })]));
    expect(htmlReport(run([cell({ workers: 1, status: 'oom' })]), new Map(), none)).not.toContain('id="deploy"');
  });
});

describe('report --emit', () => {
  it('takes pm2, kubernetes or compose, and refuses anything else with a usage error', () => {
    expect(parseEmitOption(undefined)).toBeUndefined();
    expect(parseEmitOption(' Kubernetes ')).toBe('kubernetes');
    for (const k of SNIPPET_KINDS) expect(parseEmitOption(k)).toBe(k);
    expect(() => parseEmitOption('helm')).toThrow(CliError);
    expect(() => parseEmitOption('helm')).toThrow(/--emit takes one of pm2, kubernetes, compose, not "helm"/);
    expect(() => parseEmitOption('')).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});
