// The snippets deploy the topology and the runtime the picked cells ran: Kubernetes `replicas` in a
// Deployment's spec, Compose `deploy.replicas`, PM2 instances per container; the exact Node.js
// version to build on; the flags where the cells had them. Checked against the real schemas (the
// Kubernetes OpenAPI models, the Compose Specification, PM2's own loader), and for "nothing no cell
// ran": a run without replicas, versions or flags gets exactly the snippets it got before.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { recommend } from '../../src-main/analysis/recommend.ts';
import { composeSnippet, deploySnippet, kubernetesSnippet, pm2Snippet, recommendedDeploy, SNIPPET_KINDS, WORKERS_ENV, type DeployInput } from '../../src-main/deploy/snippets.ts';
import { deployedSettings, settingsKey } from '../../src-main/deploy/settings.ts';
import { settingsOfCell, settingsWords } from '../../src-main/deploy/verification.ts';
import { planSettings, planVerification, verifyCellConfig } from '../../src-main/engine/verify-plan.ts';
import type { CellConfig } from '../../src-main/model/types.ts';
import type { StoredCell } from '../../src-main/model/stored.ts';
import { composeProblems, kubernetesContainerProblems } from '../helpers/deploy-schemas.ts';
import { reps, run } from '../helpers/run-fixture.ts';

const require = createRequire(import.meta.url);
const pm2Common = require('pm2/lib/Common.js') as { parseConfig: (text: string, filename: string) => { apps: Record<string, unknown>[] } };
const pm2Config = require('pm2/lib/tools/Config.js') as { validateJSON: (app: Record<string, unknown>) => { errors: string[]; config: Record<string, unknown> } };
const dir = mkdtempSync(join(tmpdir(), 'rightsize-topology-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileNo = 0;
function loadWithPm2(text: string): Record<string, unknown>[] {
  const file = join(dir, `ecosystem-${fileNo++}.config.js`);
  writeFileSync(file, text);
  return pm2Common.parseConfig(text, file).apps.map((a) => {
    const { errors, config } = pm2Config.validateJSON({ ...a });
    expect(errors).toEqual([]);
    return config;
  });
}

const input = (over: Partial<DeployInput['config']> = {}): DeployInput => ({
  config: { app: 'json', mode: 'cluster', workers: 1, cpuMillis: 500, memoryMb: 128, ...over },
  provenance: {
    runId: 9, runName: 'topology', load: { model: 'closed', connections: 20 }, goodput: { mean: 10033, low: 9843, high: 10223 }, p99Us: 2100,
    confidence: 'equivalent', pick: 'the knee',
  },
});

/** A Deployment around the snippet's spec fragment, as a user would complete it: selector and labels. */
function deploymentOf(fragment: { replicas: number; template: { spec: Record<string, unknown> } }): Deployment {
  return new Deployment({
    metadata: { name: 'json' },
    spec: { ...fragment, selector: { matchLabels: { app: 'json' } }, template: { metadata: { labels: { app: 'json' } }, spec: fragment.template.spec as never } },
  });
}

describe('replicas in every snippet', () => {
  const two = input({ replicas: 2 });

  it('Kubernetes: a Deployment spec with replicas: 2 and the container as measured, valid by the Kubernetes models', () => {
    const doc = parse(kubernetesSnippet(two)) as { replicas: number; template: { spec: { containers: Record<string, unknown>[] } } };
    expect(doc.replicas).toBe(2);
    expect(() => deploymentOf(doc).validate()).not.toThrow();
    const [container] = doc.template.spec.containers;
    const { name, ...fragment } = container!;
    expect(name).toBe('json');
    expect(kubernetesContainerProblems(fragment)).toEqual([]);
    expect(fragment).toEqual({
      resources: { requests: { cpu: '500m', memory: '128Mi' }, limits: { cpu: '500m', memory: '128Mi' } },
      env: [{ name: WORKERS_ENV, value: '1' }],
    });
    // The check has teeth: a Deployment missing its selector is refused.
    expect(() => new Deployment({ metadata: { name: 'x' }, spec: { replicas: 2, template: {} } as never }).validate()).toThrow();
  });

  it('Compose: deploy.replicas: 2 next to the per-container limits, valid by the Compose Specification', () => {
    const doc = parse(composeSnippet(two)) as { services: Record<string, { deploy: { replicas: number; resources: { limits: unknown } } }> };
    expect(doc.services.json!.deploy.replicas).toBe(2);
    expect(doc.services.json!.deploy.resources.limits).toEqual({ cpus: '0.5', memory: '128M' });
    expect(composeProblems(doc)).toEqual([]);
  });

  it('PM2: instances per container, and the containers to run said first', () => {
    const text = pm2Snippet(input({ replicas: 3, workers: 2 }));
    expect(loadWithPm2(text)[0]).toMatchObject({ instances: 2, exec_mode: 'cluster' });
    expect(text).toContain('// 3 replicas: run this many containers, each running PM2 with this file, each with the resources below');
    expect(text.split('\n')[0]).toContain('json, 3 containers, each cluster × 2, 0.5 CPU, measured under a 128 MB cap each');
  });

  it('one container: the snippets are exactly what they were (no replicas, no Node.js or flags line)', () => {
    const one = input();
    expect(deployedSettings('kubernetes', one.config, 128, false)).toEqual({ mode: 'cluster', workers: 1, cpuMillis: 500, cpuRequestMillis: 500, memoryMb: 128, recycleRssMb: null, heapMb: null });
    const k8s = parse(kubernetesSnippet(one)) as Record<string, unknown>;
    expect(Object.keys(k8s).sort()).toEqual(['env', 'resources']);
    for (const k of SNIPPET_KINDS) {
      const text = deploySnippet(k, one);
      expect(text).not.toMatch(/replicas|Node\.js|NODE_OPTIONS|FROM node/);
    }
    expect(deploySnippet('compose', input({ replicas: 1 }))).toBe(deploySnippet('compose', one));
  });
});

describe('the Node.js version and flags', () => {
  it('names the exact version to build on in every snippet', () => {
    for (const k of SNIPPET_KINDS) {
      const text = deploySnippet(k, input({ node: '22.11.0' }));
      expect(text).toContain('Node.js 22.11.0: the exact version its cells ran. Build the image on it: FROM node:22.11.0-slim');
    }
  });

  it('a version without a recorded exact one is said as such; several exact ones are all named', () => {
    expect(kubernetesSnippet(input({ node: '22' }))).toContain('Node.js 22, as the matrix named it: the exact version was not recorded');
    expect(composeSnippet(input({ node: '22', nodeVersions: ['22.11.0', '22.12.0'] }))).toContain('# Node.js: its cells ran 22.11.0 and 22.12.0 (as "22" resolved when each base image was built)');
  });

  it('flags as the cells ran them: NODE_OPTIONS where Node takes them, the command line where it refuses them', () => {
    const flags = input({ nodeFlags: ['--max-semi-space-size=32', '--stack-size=2000'] });
    const pm2 = loadWithPm2(pm2Snippet(flags))[0]!;
    expect(pm2.node_args).toEqual(['--stack-size=2000']);
    expect(pm2.env).toEqual({ NODE_OPTIONS: '--max-semi-space-size=32' });
    const k8s = parse(kubernetesSnippet(flags)) as { env: unknown[] };
    expect(k8s.env).toEqual([{ name: WORKERS_ENV, value: '1' }, { name: 'NODE_OPTIONS', value: '--max-semi-space-size=32' }]);
    expect(kubernetesContainerProblems(k8s as Record<string, unknown>)).toEqual([]);
    const compose = parse(composeSnippet(flags)) as { services: { json: { environment: Record<string, string> } } };
    expect(compose.services.json.environment.NODE_OPTIONS).toBe('--max-semi-space-size=32');
    expect(composeSnippet(flags)).toContain("--stack-size=2000 on node's command line (NODE_OPTIONS refuses it): node --stack-size=2000 server.js");
  });
});

/**
 * 2 containers × 1 worker on Node 22 with a flag, and 1 × 2 workers: the replicas are the pick (shown faster; within
 * the margin the single container would be, as fewer containers are cheaper at equal totals: contest.ts cheaper).
 */
function topologyRun() {
  const runtime = (cs: StoredCell[], o: Partial<CellConfig>, nodeVersion?: string): StoredCell[] =>
    cs.map((c) => ({ ...c, config: { ...c.config, ...o }, ...(nodeVersion ? { nodeVersion } : {}) }));
  return run([
    ...runtime(reps({ app: 'json', workers: 1, cpu: 500, mem: 128 }, [12050, 11950, 12100]), { replicas: 2, node: '22', nodeFlags: ['--max-semi-space-size=32'] }, '22.11.0'),
    ...runtime(reps({ app: 'json', workers: 2, cpu: 1000, mem: 256 }, [10000, 10080, 9920]), { node: '22', nodeFlags: ['--max-semi-space-size=32'] }, '22.11.0'),
  ], { name: 'topology' });
}

describe('the recommended topology, and its verification deploying the same', () => {
  const r = topologyRun();
  const rec = recommend(r);

  it('the answer picks the replicas; its snippets deploy 2 containers on the exact Node.js with the flag', () => {
    const d = recommendedDeploy(rec)!;
    expect(d.config).toMatchObject({ replicas: 2, workers: 1, cpuMillis: 500, memoryMb: 128, node: '22.11.0', nodeFlags: ['--max-semi-space-size=32'] });
    expect(d.config.nodeVersions).toBeUndefined();
    const k8s = parse(kubernetesSnippet(d)) as { replicas: number };
    expect(k8s.replicas).toBe(2);
    expect(composeSnippet(d)).toContain('      replicas: 2\n');
    for (const k of SNIPPET_KINDS) expect(deploySnippet(k, d)).toContain('FROM node:22.11.0-slim');
  });

  it('the verification cell runs the same containers, Node.js and flags, and a verified snippet reads them back from it', () => {
    const plan = planVerification(r.cells, rec, rec.scopes[0]!.knee.key, 10);
    if (typeof plan === 'string') throw new Error(plan);
    const settings = planSettings(plan, 'kubernetes', 128);
    // The plan's own settings name the containers, the exact Node.js and the flag: the descriptor is exact.
    expect(settings).toMatchObject({ replicas: 2, node: '22.11.0', nodeFlags: ['--max-semi-space-size=32'] });
    expect(plan.measured).toMatchObject({ replicas: 2, node: '22.11.0', nodeFlags: ['--max-semi-space-size=32'] });
    const cell = verifyCellConfig(plan, ['kubernetes', 'compose'], settings, { round: 'R', attempt: 1, final: false, basis: 'test' });
    expect(cell).toMatchObject({ replicas: 2, node: '22', nodeFlags: ['--max-semi-space-size=32'], workers: 1, cpuMillis: 500 });
    const ran = settingsOfCell({ ...cell, index: 6 }, '22.11.0');
    // What the snippet carries once verified is what the cell ran: the same settings as the unverified derivation.
    const d = recommendedDeploy(rec)!;
    expect(settingsKey(ran)).toBe(settingsKey(deployedSettings('kubernetes', d.config, 128, false)));
    expect(settingsWords(ran)).toBe('2 containers, each, cluster × 1, 0.5 CPU, 128 MB, Node.js 22.11.0, --max-semi-space-size=32');
  });
});
