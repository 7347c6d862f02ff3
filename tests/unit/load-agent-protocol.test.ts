// The load agent's line protocol: what the engine reads back from the agent's stdout, however the
// container's stream happens to cut it.
import { describe, expect, it } from 'vitest';
import { FrameSplitter } from '../../src-main/load-agent/attach-frames.ts';
import { agentLine, LineParser, parseAgentLine, planEnvValue, readPlan, type AgentLine } from '../../src-main/load-agent/line-protocol.ts';

const second = (t: number, warmup: boolean): AgentLine => ({
  type: 'second', warmup, s: { t, requests: 100 + t, bytes: 1000, errors: 0, timeouts: 0, non2xx: 0, p50Us: 80, p90Us: 120, p99Us: 300, maxUs: 900 },
});
const result: AgentLine = {
  type: 'result', threadElu: [0.4], loadCpuSec: 0.8, cancelled: false,
  result: {
    model: 'closed', connections: 4, measuredSec: 2, requests: 201, bytes: 2000, rpsMean: 100.5, rpsStddev: 0.7, bytesPerSec: 1000,
    latencyUs: { p50: 80, p75: 90, p90: 120, p97_5: 200, p99: 300, p99_9: 800, max: 900, mean: 95, stddev: 20 },
    latencyFrom: 'send', statusCounts: { 200: 201 }, errors: 0, timeouts: 0, non2xx: 0, clientElu: 0.4, clientBound: false,
    perSecondRps: [100, 101], threads: 1,
  },
};

describe('load agent line protocol', () => {
  it('round-trips every message type', () => {
    for (const m of [second(-1, true), second(0, false), result, { type: 'error', message: 'boom' } as AgentLine]) {
      const line = agentLine(m);
      expect(line.endsWith('\n')).toBe(true);
      expect(line.slice(0, -1)).not.toContain('\n');
      expect(parseAgentLine(line)).toEqual(m);
    }
  });

  it('joins lines cut anywhere, one byte at a time included, and inside a multi-byte character', () => {
    const msgs = [second(-1, true), second(0, false), { type: 'error', message: 'naïve € — 失败' } as AgentLine, result];
    const bytes = Buffer.from(msgs.map(agentLine).join(''));
    for (const size of [1, 2, 3, 7, 64, bytes.length]) {
      const p = new LineParser();
      const got: unknown[] = [];
      for (let i = 0; i < bytes.length; i += size) got.push(...p.push(bytes.subarray(i, i + size)));
      got.push(...p.end());
      expect(got, `chunks of ${size}`).toEqual(msgs);
    }
  });

  it('keeps a last line without its newline for the end, and nothing for blank lines', () => {
    const p = new LineParser();
    expect(p.push('\n\n' + agentLine(second(0, false)) + agentLine(result).trimEnd())).toEqual([second(0, false)]);
    expect(p.end()).toEqual([result]);
    expect(p.end()).toEqual([]);
  });

  it('reports garbage and malformed messages as noise, never as data', () => {
    const p = new LineParser();
    const got = p.push('(node:7) Warning: something\n{"type":"second","warmup":"yes","s":{}}\n[1,2]\n{"type":"result"}\n{"type":"other"}\n{"type":"second","warmup":tr\n');
    expect(got.map((m) => m.type)).toEqual(['noise', 'noise', 'noise', 'noise', 'noise', 'noise']);
    expect(got[0]).toEqual({ type: 'noise', text: '(node:7) Warning: something' });
  });

  it('an error line without a message still reads as an error', () => {
    expect(parseAgentLine('{"type":"error"}')).toEqual({ type: 'error', message: 'the load agent failed without saying why' });
  });

  it('reads a plan, and says what is wrong with a bad one', () => {
    const plan = { host: 'h', port: 1, requests: [{ method: 'GET', path: '/' }], load: { model: 'closed', connections: 1 }, durationSec: 1, warmupSec: 0, timeoutSec: 5 };
    expect(readPlan(JSON.stringify({ plan, adaptiveWarmup: true }))).toEqual({ plan, adaptiveWarmup: true });
    expect(readPlan(JSON.stringify({ plan }))).toEqual({ plan, adaptiveWarmup: false });
    expect(() => readPlan(undefined)).toThrow(/no load plan: set RIGHTSIZE_LOAD_PLAN/);
    expect(() => readPlan('{plan')).toThrow(/not JSON/);
    expect(() => readPlan(JSON.stringify({ plan: { host: 'h' } }))).toThrow('the load plan lacks port, requests, load, durationSec, warmupSec, timeoutSec');
    expect(() => readPlan('null')).toThrow('the load plan lacks plan');
  });
});

describe("Docker's attach frames", () => {
  const frame = (kind: 1 | 2, text: string): Buffer => {
    const payload = Buffer.from(text);
    const h = Buffer.alloc(8);
    h[0] = kind;
    h.writeUInt32BE(payload.length, 4);
    return Buffer.concat([h, payload]);
  };

  it('splits stdout from stderr however the chunks fall, and the lines come out whole', () => {
    const out = [second(-1, true), second(0, false), result].map(agentLine);
    // A line may itself be cut across two frames (Docker frames what each write() gave it).
    const bytes = Buffer.concat([frame(1, out[0]!), frame(2, 'warn: one\n'), frame(1, out[1]!.slice(0, 10)), frame(1, out[1]!.slice(10) + out[2]!), frame(2, 'warn: two\n')]);
    for (const size of [1, 5, 8, 9, 100, bytes.length]) {
      const lines = new LineParser();
      const got: unknown[] = [];
      let err = '';
      const f = new FrameSplitter((kind, payload) => (kind === 'stdout' ? got.push(...lines.push(payload)) : (err += payload.toString())));
      for (let i = 0; i < bytes.length; i += size) f.push(bytes.subarray(i, i + size));
      expect(got, `chunks of ${size}`).toEqual([second(-1, true), second(0, false), result]);
      expect(err).toBe('warn: one\nwarn: two\n');
    }
  });
});

describe('a mix sent to a load agent', () => {
  const mix = [
    { method: 'GET', path: '/p/{{csv ids.csv id}}', weight: 3 },
    { sequence: [{ method: 'POST', path: '/login', capture: { t: { json: '$.t' } } }, { method: 'GET', path: '/me', headers: { a: '{{t}}' } }] },
  ];
  const plan = (rows: number) => ({
    plan: {
      host: 'h', port: 1, requests: mix, csv: { 'ids.csv': { id: Array.from({ length: rows }, (_, i) => String(i)) } }, seed: 7,
      load: { model: 'closed', connections: 1 }, durationSec: 1, warmupSec: 0, timeoutSec: 5,
    },
  });

  it('travels whole: requests, CSV columns and seed', () => {
    expect(readPlan(planEnvValue(plan(1000))).plan).toEqual(plan(1000).plan);
  });

  it('is refused before any container when its CSV columns would not fit the environment, saying what to shrink', () => {
    expect(() => planEnvValue(plan(40_000))).toThrow(/the load plan is \d+ KiB, over the 127 KiB a load agent's environment takes: .*use fewer rows/);
  });
});
