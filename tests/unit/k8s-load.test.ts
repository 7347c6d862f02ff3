// A cell's load in the cluster (KubernetesProvider.runLoad) against the fake API server replaying
// recorded responses: the exact load pod it creates (labels, anti-affinity, requests = limits,
// restartPolicy Never, the plan), the agent's JSON lines streamed from the pod's followed log into
// the same callbacks as a local load, cancel (the pod deleted with a grace, the result still read),
// failures in words, and the pod deleted whatever happens. Verified against recorded API responses,
// not a live cluster: no API server can run on this machine.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import Docker from 'dockerode';
import type { V1Pod } from '@kubernetes/client-node';
import { isWarm } from '../../src-main/load/steady-state.ts';
import type { LoadSecond } from '../../src-main/model/types.ts';
import type { LoadPlan } from '../../src-main/load/protocol.ts';
import { KubernetesProvider } from '../../src-main/providers/kubernetes/provider.ts';
import type { ProvisionedTarget } from '../../src-main/providers/provider.ts';
import { FakeApi, fixture, fixtureText, listOf, status, type Reply } from './k8s-fake-api.ts';

const SESSION = 'laptop~0a1b2c3d4e5f6a7b.9f8e7d6c5b4a:4242:123456';
const PODS = '/api/v1/namespaces/rightsize-run-7/pods';
const POD = `${PODS}/load-3`;
const LOG = `${POD}/log`;
const AGENT_LOCAL = 'rightsize/load-agent:4f2a9c0d1e3b5a7c';
const AGENT_REF = `registry.example.com/rightsize/${AGENT_LOCAL}`;
const labels = { run: '7', cell: '3', app: 'hello', session: SESSION };

const plan: LoadPlan = {
  host: '10.244.2.17',
  port: 3000,
  requests: [{ method: 'GET', path: '/' }],
  load: { model: 'closed', connections: 16 },
  durationSec: 5,
  warmupSec: 3,
  maxWarmupSec: 30,
  timeoutSec: 10,
  cpus: '1', // cores on this machine: meaningless in the pod, left out of its plan
};

/** Only what runLoad reads of a provisioned target. */
const target = { id: 'rightsize-run-7/cell-3', address: { host: '10.244.2.17', port: 3000 }, node: 'worker-b' } as ProvisionedTarget;

let api: FakeApi;
let engine: FakeApi;
beforeEach(async () => {
  api = await new FakeApi().start();
  engine = await fakeEngine();
});
afterEach(async () => {
  await api.close();
  await engine.close();
});

/** A Docker engine that tags and pushes (the images the cluster pulls), recording what it was asked. */
async function fakeEngine(): Promise<FakeApi> {
  const e = await new FakeApi().start();
  e.on('POST', /^\/images\/.+\/tag$/, { status: 201, text: '' });
  e.on('POST', /^\/images\/.+\/push$/, { json: {}, contentType: 'application/json' });
  return e;
}

const provider = (over: Partial<ConstructorParameters<typeof KubernetesProvider>[0]> = {}): KubernetesProvider =>
  new KubernetesProvider({
    name: 'lab',
    kubeConfig: api.kubeConfig(),
    pollMs: 5,
    readyTimeoutMs: 2_000,
    removeTimeoutMs: 2_000,
    registry: { registry: 'registry.example.com/rightsize' },
    images: { engine: () => dockerAt(engine.url), loadAgentImage: async () => AGENT_LOCAL },
    ...over,
  });

function dockerAt(url: string): Docker {
  const u = new URL(url);
  return new Docker({ host: u.hostname, port: Number(u.port), protocol: 'http' });
}

/** The log of the agent's run (recorded stdout), as lines. */
const agentLog = fixtureText('load-agent-log.txt');
const logLines = agentLog.split('\n').filter(Boolean);

/** Writes lines to a followed log one by one (each its own chunk, a tick apart), then ends it unless told not to. */
function streamLines(lines: string[], o: { end?: boolean } = {}): (res: ServerResponse) => void {
  return (res) => {
    let i = 0;
    const next = (): void => {
      if (res.destroyed) return;
      if (i < lines.length) {
        res.write(`${lines[i++]}\n`);
        setTimeout(next, 2);
      } else if (o.end !== false) res.end();
    };
    next();
  };
}

/** The routes of a load pod that is created, starts on worker-a and is gone once deleted. */
function loadPod(o: { pods?: (() => V1Pod)[]; log?: (res: ServerResponse) => void; nodes?: string } = {}): void {
  api.on('GET', '/api/v1/nodes', { json: fixture(o.nodes ?? 'nodes.json') });
  api.on('POST', PODS, { status: 201, json: fixture('load-pod-created.json') });
  const states = o.pods ?? [() => fixture<V1Pod>('load-pod-pending.json'), () => fixture<V1Pod>('load-pod-running.json')];
  let polled = 0;
  api.on('GET', POD, () => {
    if (api.calls('DELETE', POD).some((d) => d.query.get('gracePeriodSeconds') === '0')) return status(404, 'status-404-deployment.json');
    return { json: states[Math.min(polled++, states.length - 1)]!() };
  });
  api.on('DELETE', POD, { json: fixture('load-pod-deleting.json') });
  api.on('GET', LOG, (r) => (r.query.get('follow') === 'true' ? { stream: o.log ?? streamLines(logLines) } : { text: agentLog }));
}

const recordSeconds = (): { seconds: [LoadSecond, boolean][]; onSecond: (s: LoadSecond, w: boolean) => void } => {
  const seconds: [LoadSecond, boolean][] = [];
  return { seconds, onSecond: (s, w) => void seconds.push([s, w]) };
};

describe('runLoad: the load agent as a pod', () => {
  it('creates exactly the load pod: role=load labels, away from the target node, requests = limits, restartPolicy Never, the plan', async () => {
    loadPod();
    await provider().runLoad(target, plan, { isWarm }, { labels, targetNode: 'worker-b' });
    const [post] = api.calls('POST', PODS);
    const body = post!.body as V1Pod;
    const env = body.spec!.containers[0]!.env!;
    expect(env).toHaveLength(1);
    expect(env[0]!.name).toBe('RIGHTSIZE_LOAD_PLAN');
    const { cpus: _, ...inPod } = plan;
    expect(JSON.parse(env[0]!.value!)).toEqual({ plan: { ...inPod, threads: 2 }, adaptiveWarmup: true });
    body.spec!.containers[0]!.env = [];
    expect(body).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'load-3',
        namespace: 'rightsize-run-7',
        labels: {
          'rightsize.dev/product': 'rightsize',
          'rightsize.dev/session': 'laptop-0a1b2c3d4e5f6a7b.9f8e7d6c5b4a-4242-123456-e23de09be4', // labelValue(SESSION)
          'rightsize.dev/app': 'hello',
          'app.kubernetes.io/managed-by': 'rightsize',
          'rightsize.dev/run': '7',
          'rightsize.dev/cell': '3',
          'rightsize.dev/role': 'load',
        },
        annotations: { 'rightsize.dev/session': SESSION, 'rightsize.dev/app': 'hello' },
      },
      spec: {
        restartPolicy: 'Never',
        terminationGracePeriodSeconds: 15,
        automountServiceAccountToken: false,
        enableServiceLinks: false,
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['worker-b'] }] }] },
          },
        },
        containers: [
          {
            name: 'agent',
            image: AGENT_REF,
            imagePullPolicy: 'IfNotPresent',
            args: ['node', '/opt/rightsize/load-agent/load-agent.js'],
            env: [],
            resources: { requests: { cpu: '2000m', memory: '512Mi' }, limits: { cpu: '2000m', memory: '512Mi' } },
          },
        ],
      },
    });
    expect(post!.headers.authorization).toBe('Bearer fake-token-123');
  });

  it("streams the agent's seconds to the callbacks as they come, and returns its result and the node it ran on", async () => {
    loadPod();
    const { seconds, onSecond } = recordSeconds();
    const out = await provider().runLoad(target, plan, { isWarm, onSecond }, { labels, targetNode: 'worker-b' });
    expect(out.node).toBe('worker-a');
    const recorded = logLines.slice(1).map((l) => JSON.parse(l) as { type: string; warmup?: boolean; s?: LoadSecond; result?: unknown });
    expect(seconds).toEqual(recorded.filter((m) => m.type === 'second').map((m) => [m.s, m.warmup]));
    expect(seconds.map(([s, w]) => `${s.t}${w ? 'w' : ''}`)).toEqual(['-3w', '-2w', '-1w', '0', '1', '2', '3', '4']);
    expect(out.result).toEqual(recorded.at(-1)!.result);
    const follow = api.calls('GET', LOG).find((r) => r.query.get('follow') === 'true')!;
    expect(follow.query.get('container')).toBe('agent');
    // Finished: deleted at once (grace 0), and waited for until gone.
    const dels = api.calls('DELETE', POD);
    expect(dels.map((d) => d.query.get('gracePeriodSeconds'))).toEqual(['0']);
    expect(api.calls('GET', POD).length).toBeGreaterThanOrEqual(3);
  });

  it('prefers another node on a cluster with one schedulable node (the load must share it)', async () => {
    loadPod({ nodes: 'nodes-one-busy.json' });
    await provider().runLoad(target, plan, {}, { labels, targetNode: 'worker-a' });
    const body = api.calls('POST', PODS)[0]!.body as V1Pod;
    expect(body.spec!.affinity).toEqual({
      nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, preference: { matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['worker-a'] }] } }] },
    });
    expect(JSON.parse(body.spec!.containers[0]!.env![0]!.value!).adaptiveWarmup).toBe(false);
  });

  it('sizes the pod for the load threads the plan asks for', async () => {
    loadPod();
    await provider().runLoad(target, { ...plan, threads: 3 }, {}, { labels, targetNode: 'worker-b' });
    const c = (api.calls('POST', PODS)[0]!.body as V1Pod).spec!.containers[0]!;
    expect(c.resources).toEqual({ requests: { cpu: '3000m', memory: '640Mi' }, limits: { cpu: '3000m', memory: '640Mi' } });
    expect(JSON.parse(c.env![0]!.value!).plan.threads).toBe(3);
  });

  it('on abort deletes the pod with a grace (SIGTERM), still returns what the agent measured, and reports no second after the stop', async () => {
    const warm = logLines.slice(1, 4);
    let res!: ServerResponse;
    loadPod({ log: (r) => ((res = r), streamLines(warm, { end: false })(r)) });
    const stopped = { ...JSON.parse(logLines.at(-1)!), cancelled: true };
    // The kubelet's SIGTERM: the agent prints one more second (in flight), then its result, and exits.
    api.on('DELETE', POD, (r) => {
      if (r.query.get('gracePeriodSeconds') === '15') {
        res.write(`${logLines[4]}\n${JSON.stringify(stopped)}\n`);
        res.end();
      }
      return { json: fixture('load-pod-deleting.json') };
    });
    const ctl = new AbortController();
    const { seconds, onSecond } = recordSeconds();
    const out = await provider().runLoad(target, plan, { isWarm, signal: ctl.signal, onSecond: (s, w) => (onSecond(s, w), seconds.length === 3 && ctl.abort()) }, { labels, targetNode: 'worker-b' });
    expect(out.result).toEqual(stopped.result);
    expect(seconds).toHaveLength(3);
    expect(api.calls('DELETE', POD).map((d) => d.query.get('gracePeriodSeconds'))).toEqual(['15', '0']);
  });

  it('on abort before the agent runs deletes the pod and says so', async () => {
    loadPod({ pods: [() => fixture<V1Pod>('load-pod-pending.json')] });
    const ctl = new AbortController();
    const run = provider().runLoad(target, plan, { signal: ctl.signal }, { labels, targetNode: 'worker-b' });
    while (api.calls('GET', POD).length < 2) await new Promise((r) => setImmediate(r));
    ctl.abort();
    await expect(run).rejects.toThrow('the load on pod rightsize-run-7/load-3 was cancelled before the agent ran');
    expect(api.calls('DELETE', POD).map((d) => d.query.get('gracePeriodSeconds'))).toEqual(['0']);
    expect(api.calls('GET', LOG)).toHaveLength(0);
  });

  it('fails in words when the agent reports an error, and deletes the pod', async () => {
    loadPod({ log: streamLines([logLines[1]!, JSON.stringify({ type: 'error', message: 'connect ECONNREFUSED 10.244.2.17:3000' })]) });
    await expect(provider().runLoad(target, plan, {}, { labels, targetNode: 'worker-b' })).rejects.toThrow(
      'load agent on pod rightsize-run-7/load-3 on worker-a: connect ECONNREFUSED 10.244.2.17:3000',
    );
    expect(api.calls('DELETE', POD)).toHaveLength(1);
  });

  it('fails with the exit code and the last lines when the agent exits without a result', async () => {
    const crash = ['(node:1) Warning: something went wrong', logLines[1]!, 'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory'];
    loadPod({ pods: [() => fixture<V1Pod>('load-pod-running.json'), () => fixture<V1Pod>('load-pod-running.json'), () => fixture<V1Pod>('load-pod-failed.json')], log: streamLines(crash) });
    api.on('GET', LOG, (r) => (r.query.get('follow') === 'true' ? { stream: streamLines(crash) } : { text: `${crash.join('\n')}\n` }));
    const { seconds, onSecond } = recordSeconds();
    await expect(provider().runLoad(target, plan, { onSecond }, { labels, targetNode: 'worker-b' })).rejects.toThrow(
      'the load agent on pod rightsize-run-7/load-3 on worker-a exited with code 1 before it reported a result\n(node:1) Warning: something went wrong\nFATAL ERROR: Reached heap limit',
    );
    expect(seconds).toHaveLength(1); // the final whole-log read added no second twice
  });

  it('follows the log again when the stream is cut while the agent runs, without repeating a second', async () => {
    loadPod({ pods: [() => fixture<V1Pod>('load-pod-running.json')] });
    let follows = 0;
    // The first stream is cut after two seconds; the next one starts from the beginning, as a log does.
    api.on('GET', LOG, (r) => (r.query.get('follow') === 'true' ? { stream: streamLines(follows++ === 0 ? logLines.slice(0, 3) : logLines) } : { text: agentLog }));
    const { seconds, onSecond } = recordSeconds();
    const out = await provider().runLoad(target, plan, { onSecond }, { labels, targetNode: 'worker-b' });
    expect(follows).toBe(2);
    expect(seconds.map(([s]) => s.t)).toEqual([-3, -2, -1, 0, 1, 2, 3, 4]);
    expect(out.result.requests).toBe(22079);
  });

  it('gives up, in words, on a log stream that keeps being cut while the agent runs', async () => {
    loadPod({ pods: [() => fixture<V1Pod>('load-pod-running.json')], log: streamLines(logLines.slice(0, 2)) });
    await expect(provider().runLoad(target, plan, {}, { labels, targetNode: 'worker-b' })).rejects.toThrow(
      "lost the load agent's log (pod rightsize-run-7/load-3 on worker-a): the stream ended 5 times while the agent still ran",
    );
    expect(api.calls('GET', LOG).filter((r) => r.query.get('follow') === 'true')).toHaveLength(5);
    expect(api.calls('DELETE', POD)).toHaveLength(1);
  });

  it('fails in words when the agent image cannot be pulled, and deletes the pod', async () => {
    loadPod({ pods: [() => fixture<V1Pod>('load-pod-imagepullbackoff.json')] });
    await expect(provider().runLoad(target, plan, {}, { labels, targetNode: 'worker-b' })).rejects.toThrow(
      `the load agent did not start (pod rightsize-run-7/load-3): ImagePullBackOff: Back-off pulling image "${AGENT_REF}"`,
    );
    expect(api.calls('DELETE', POD)).toHaveLength(1);
  });

  it('replaces a load pod of the same cell left by an earlier attempt', async () => {
    loadPod();
    let posts = 0;
    api.on('POST', PODS, () => (posts++ === 0 ? { status: 409, json: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'pods "load-3" already exists', reason: 'AlreadyExists', details: { name: 'load-3', kind: 'pods' }, code: 409 } } : { status: 201, json: fixture('load-pod-created.json') }));
    // The old pod exists until the first delete; the new one from the second create until the last.
    const exists = (): boolean => api.calls('POST', PODS).length > api.calls('DELETE', POD).length;
    api.on('GET', POD, () => (exists() ? { json: fixture('load-pod-running.json') } : status(404, 'status-404-deployment.json')));
    const out = await provider().runLoad(target, plan, {}, { labels, targetNode: 'worker-b' });
    expect(out.result.requests).toBe(22079);
    expect(api.calls('POST', PODS)).toHaveLength(2);
    expect(api.calls('DELETE', POD).map((d) => d.query.get('gracePeriodSeconds'))).toEqual(['0', '0']);
  });

  it('refuses a warmup rule other than the steady-state one before making anything', async () => {
    loadPod();
    await expect(provider().runLoad(target, plan, { isWarm: () => true }, { labels })).rejects.toThrow(/steady-state rule/);
    expect(api.requests).toHaveLength(0);
  });

  it('refuses without a registry, naming the setting, before making anything', async () => {
    loadPod();
    await expect(provider({ registry: undefined }).runLoad(target, plan, {}, { labels })).rejects.toThrow(/has no registry.*`registry` setting/);
    expect(api.requests).toHaveLength(0);
    expect(engine.requests).toHaveLength(0);
  });

  it('puts the pod in the namespace named by the saved namespacePrefix', async () => {
    api.on('GET', '/api/v1/nodes', { json: fixture('nodes.json') });
    api.on('POST', '/api/v1/namespaces/team-a-run-7/pods', { status: 201, json: fixture('load-pod-created.json') });
    api.on('GET', '/api/v1/namespaces/team-a-run-7/pods/load-3', { json: fixture('load-pod-running.json') }, status(404, 'status-404-deployment.json'));
    api.on('DELETE', '/api/v1/namespaces/team-a-run-7/pods/load-3', { json: fixture('load-pod-deleting.json') });
    api.on('GET', '/api/v1/namespaces/team-a-run-7/pods/load-3/log', { stream: streamLines(logLines) });
    await provider({ namespacePrefix: 'team-a' }).runLoad(target, plan, {}, { labels, targetNode: 'worker-b' });
    expect((api.calls('POST', '/api/v1/namespaces/team-a-run-7/pods')[0]!.body as V1Pod).metadata!.namespace).toBe('team-a-run-7');
    expect(api.calls('DELETE', '/api/v1/namespaces/team-a-run-7/pods/load-3')).toHaveLength(1);
  });
});

describe('concurrency: cells at once', () => {
  const worker = (name: string): unknown => {
    const n = fixture<{ items: { metadata: { name: string; labels: Record<string, string> } }[] }>('nodes.json').items[1]!;
    return { ...n, metadata: { ...n.metadata, name, labels: { ...n.metadata.labels, 'kubernetes.io/hostname': name } } };
  };
  const ourPods = (...onNodes: string[]): Reply =>
    listOf('PodList', onNodes.map((node, i) => ({ ...fixture<V1Pod>('pod-running.json'), metadata: { ...fixture<V1Pod>('pod-running.json').metadata, name: `cell-${i}-x` }, spec: { ...fixture<V1Pod>('pod-running.json').spec, nodeName: node } })));

  it('is half the free nodes (a target alone on one, its load on another), at least 1', async () => {
    const nodes = fixture<{ items: unknown[] }>('nodes.json'); // control-plane (tainted), worker-a, worker-b
    api.on('GET', '/api/v1/pods', ourPods());
    api.on('GET', '/api/v1/nodes', { json: nodes });
    expect(await provider().concurrency()).toBe(1);
    api.on('GET', '/api/v1/nodes', { json: { ...nodes, items: [...nodes.items, worker('worker-c'), worker('worker-d')] } });
    expect(await provider().concurrency()).toBe(2);
    // A node running one of our targets is not free.
    api.on('GET', '/api/v1/pods', ourPods('worker-c'));
    expect(await provider().concurrency()).toBe(1);
    expect(api.calls('GET', '/api/v1/pods').at(-1)!.query.get('labelSelector')).toBe('rightsize.dev/product=rightsize');
  });

  it('is 1 on a one-node (preferred spread) target, without asking', async () => {
    expect(await provider({ spread: 'preferred' }).concurrency()).toBe(1);
    expect(api.requests).toHaveLength(0);
  });
});
