// The engine's side of a load agent, shared by every transport (a Docker container's attach stream,
// a pod's followed log): lines to runLoad's callbacks and result, cut anywhere; cancel asks the
// agent to stop and still takes its result, bounded by a grace; failures in words with the last lines.
import { describe, expect, it } from 'vitest';
import { isWarm } from '../../src-main/load/steady-state.ts';
import type { LoadSecond } from '../../src-main/model/types.ts';
import { AgentStream, LoadAgentError, agentPlanFor } from '../../src-main/load-agent/agent-stream.ts';
import { agentLine, type AgentLine } from '../../src-main/load-agent/line-protocol.ts';
import type { LoadPlan } from '../../src-main/load/protocol.ts';
import { fixtureText } from './k8s-fake-api.ts';

const lines = fixtureText('load-agent-log.txt').split('\n').filter(Boolean);
const result = (JSON.parse(lines.at(-1)!) as Extract<AgentLine, { type: 'result' }>).result;
const plan: LoadPlan = { host: 'h', port: 1, requests: [{ method: 'GET', path: '/' }], load: { model: 'closed', connections: 4 }, durationSec: 5, warmupSec: 3, timeoutSec: 10 };

describe('agentPlanFor', () => {
  it("carries the plan and whether the agent applies the steady-state rule; refuses any other rule", () => {
    expect(agentPlanFor(plan, { isWarm }, { threads: 2 })).toEqual({ plan: { ...plan, threads: 2 }, adaptiveWarmup: true });
    expect(agentPlanFor(plan, {})).toEqual({ plan, adaptiveWarmup: false });
    expect(() => agentPlanFor(plan, { isWarm: () => true })).toThrow(LoadAgentError);
    // Nor can it wait on the engine's word for where measurement may start (a raised cap's return).
    expect(() => agentPlanFor(plan, { isWarm, warmFrom: () => 4 })).toThrow(/cannot hold its warm-up/);
  });
});

describe('AgentStream', () => {
  it('hands every second to onSecond in order, however the bytes are cut, and resolves with the result', async () => {
    const seen: [number, boolean][] = [];
    const out = new AgentStream({ cb: { onSecond: (s: LoadSecond, w) => void seen.push([s.t, w]) }, where: 'x', terminate: async () => {} });
    const all = Buffer.from(lines.join('\n') + '\n');
    for (let i = 0; i < all.length; i += 7) out.stdout(all.subarray(i, i + 7));
    expect(await out.result).toEqual(result);
    expect(seen).toEqual([[-3, true], [-2, true], [-1, true], [0, false], [1, false], [2, false], [3, false], [4, false]]);
    expect(out.settled).toBe(true);
  });

  it('on abort asks the agent to stop, reports no second after, and takes the result it still prints', async () => {
    const ctl = new AbortController();
    let asked = 0;
    const seen: number[] = [];
    const out = new AgentStream({ cb: { signal: ctl.signal, onSecond: (s) => void seen.push(s.t) }, where: 'x', terminate: async () => void asked++ });
    out.stdout(`${lines[1]}\n`);
    ctl.abort();
    out.stdout(`${lines[2]}\n${agentLine({ type: 'result', result, threadElu: [], loadCpuSec: 0, cancelled: true })}`);
    expect(await out.result).toEqual(result);
    expect(asked).toBe(1);
    expect(seen).toEqual([-3]);
  });

  it('fails when a stopped agent does not report within the grace, or could not be asked (not running)', async () => {
    const ctl = new AbortController();
    const slow = new AgentStream({ cb: { signal: ctl.signal }, where: 'pod p', terminate: async () => {}, graceMs: 20 });
    ctl.abort();
    await expect(slow.result).rejects.toThrow('the load agent on pod p did not report within 20 ms of being stopped');
    const gone = new AgentStream({ cb: {}, where: 'pod p', terminate: () => Promise.reject(new Error('no such container')) });
    gone.stop();
    await expect(gone.result).rejects.toThrow('the load on pod p was cancelled before the agent ran');
  });

  it("fails with the agent's error, or with its exit code and last lines when it ended without a result", async () => {
    const err = new AgentStream({ cb: {}, where: 'n2', terminate: async () => {} });
    err.stdout(agentLine({ type: 'error', message: 'bad plan' }));
    await expect(err.result).rejects.toThrow('load agent on n2: bad plan');

    const died = new AgentStream({ cb: {}, where: 'n2', terminate: async () => {} });
    died.stdout('(node:1) Warning: x\n');
    died.stderr('FATAL ERROR: heap out of memory\n');
    died.stdout(lines[1]!); // a last line without its newline is still read at the end
    let settledHook = 0;
    died.onSettle(() => settledHook++);
    await died.end(async () => 134);
    await expect(died.result).rejects.toThrow('the load agent on n2 exited with code 134 before it reported a result\n(node:1) Warning: x\nFATAL ERROR: heap out of memory');
    expect(settledHook).toBe(1);
  });

  it('stops the agent and fails with the callback\'s own error when onSecond throws', async () => {
    let asked = 0;
    const boom = new Error('store full');
    const out = new AgentStream({ cb: { onSecond: () => { throw boom; } }, where: 'x', terminate: async () => void asked++ });
    out.stdout(`${lines[1]}\n`);
    await expect(out.result).rejects.toBe(boom);
    expect(asked).toBe(1);
  });
});
