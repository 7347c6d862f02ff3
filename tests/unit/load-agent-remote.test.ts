// runRemoteLoad over AgentStream, against a fake Docker engine (a local HTTP server recording every
// request; the agent's output sent as Docker's multiplexed attach frames): the same seconds, result,
// cancel and failures as the shared stream gives every transport, and the container always removed.
// The real engine-to-engine path is tests/integration/load-agent.test.ts.
import type { ServerResponse } from 'node:http';
import Docker from 'dockerode';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWarm } from '../../src-main/load/steady-state.ts';
import type { LoadPlan } from '../../src-main/load/protocol.ts';
import { runRemoteLoad, type AgentPlacement } from '../../src-main/load-agent/remote-load.ts';
import { FakeApi, fixtureText } from './k8s-fake-api.ts';

const lines = fixtureText('load-agent-log.txt').split('\n').filter(Boolean);
const plan: LoadPlan = { host: '10.0.0.2', port: 3000, requests: [{ method: 'GET', path: '/' }], load: { model: 'closed', connections: 16 }, durationSec: 5, warmupSec: 3, timeoutSec: 10 };

/** One frame of Docker's attach stream: stream type, three zero bytes, payload size (big-endian), payload. */
const frame = (kind: 1 | 2, text: string): Buffer => {
  const payload = Buffer.from(text);
  const head = Buffer.alloc(8);
  head[0] = kind;
  head.writeUInt32BE(payload.length, 4);
  return Buffer.concat([head, payload]);
};

let engine: FakeApi;
let out: ServerResponse;
let placement: AgentPlacement;
beforeEach(async () => {
  engine = await new FakeApi().start();
  engine.on('POST', '/containers/create', { status: 201, json: { Id: 'c0ffee', Warnings: [] } });
  engine.on('POST', '/containers/c0ffee/attach', { stream: (res) => void (out = res) });
  engine.on('POST', '/containers/c0ffee/wait', { json: { StatusCode: 0 } });
  engine.on('DELETE', '/containers/c0ffee', { status: 204, text: '' });
  const u = new URL(engine.url);
  placement = { engine: new Docker({ host: u.hostname, port: Number(u.port), protocol: 'http' }), where: 'node-2' };
});
afterEach(() => engine.close());

/** The agent's lines as it prints them once started: each its own frame, a tick apart; then the stream ends. */
const printOnStart = (ls: string[], o: { end?: boolean; stderr?: string } = {}): void => {
  engine.on('POST', '/containers/c0ffee/start', () => {
    setTimeout(() => {
      if (o.stderr) out.write(frame(2, o.stderr));
      let i = 0;
      const next = (): void => {
        if (i < ls.length) {
          out.write(frame(1, `${ls[i++]}\n`));
          setTimeout(next, 2);
        } else if (o.end !== false) out.end();
      };
      next();
    }, 5);
    return { status: 204, text: '' };
  });
};

describe('runRemoteLoad', () => {
  it('creates the agent container, streams its seconds to the callbacks, returns its result and removes it', async () => {
    printOnStart(lines);
    const seen: number[] = [];
    const result = await runRemoteLoad(placement, { ...plan, cpus: '2-3' }, { isWarm, onSecond: (s) => void seen.push(s.t) }, { image: 'rightsize/load-agent:x', labels: { run: 7, cell: 3, app: 'hello' } });
    expect(result).toEqual(JSON.parse(lines.at(-1)!).result);
    expect(seen).toEqual([-3, -2, -1, 0, 1, 2, 3, 4]);
    const create = engine.calls('POST', '/containers/create')[0]!.body as { Env: string[]; HostConfig: unknown; Cmd: string[] };
    expect(create.Cmd).toEqual(['node', '/opt/rightsize/load-agent/load-agent.js']);
    expect(JSON.parse(create.Env[0]!.slice('RIGHTSIZE_LOAD_PLAN='.length))).toEqual({ plan: { ...plan, cpus: '2-3' }, adaptiveWarmup: true });
    expect(create.HostConfig).toEqual({ NetworkMode: 'host', CpusetCpus: '2-3' });
    const [del] = engine.calls('DELETE', '/containers/c0ffee');
    expect(Object.fromEntries(del!.query)).toEqual({ force: 'true', v: 'true' });
  });

  it('on abort sends SIGTERM and still returns the result the agent prints', async () => {
    printOnStart(lines.slice(1, 3), { end: false });
    const stopped = { ...JSON.parse(lines.at(-1)!), cancelled: true };
    engine.on('POST', '/containers/c0ffee/kill', () => {
      setTimeout(() => (out.write(frame(1, `${JSON.stringify(stopped)}\n`)), out.end()), 5);
      return { status: 204, text: '' };
    });
    const ctl = new AbortController();
    const seen: number[] = [];
    const result = await runRemoteLoad(placement, plan, { signal: ctl.signal, onSecond: (s) => (seen.push(s.t), seen.length === 2 && ctl.abort()) }, { image: 'i' });
    expect(result).toEqual(stopped.result);
    expect(seen).toEqual([-3, -2]);
    expect(engine.calls('POST', '/containers/c0ffee/kill')[0]!.query.get('signal')).toBe('SIGTERM');
    expect(engine.calls('DELETE', '/containers/c0ffee')).toHaveLength(1);
  });

  it('fails with the exit code and the last lines (stdout noise and stderr) when the agent ends without a result', async () => {
    engine.on('POST', '/containers/c0ffee/wait', { json: { StatusCode: 1 } });
    printOnStart(['(node:1) Warning: x', lines[1]!], { stderr: 'Error: Cannot find module autocannon\n' });
    await expect(runRemoteLoad(placement, plan, {}, { image: 'i' })).rejects.toThrow(
      'the load agent on node-2 exited with code 1 before it reported a result\n(node:1) Warning: x\nError: Cannot find module autocannon',
    );
    expect(engine.calls('DELETE', '/containers/c0ffee')).toHaveLength(1);
  });
});
