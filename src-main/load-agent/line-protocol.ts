// What the load agent prints on stdout, one JSON object a line, and how the engine reads it back.
// Pure: no Docker, no threads. The agent writes with `agentLine`; the engine feeds whatever chunks
// the container's output stream delivers into a LineParser (lines split anywhere, even inside a
// multi-byte character) and gets whole messages back.
import { StringDecoder } from 'node:string_decoder';
import type { LoadResult, LoadSecond } from '../model/types.ts';
import type { LoadPlan } from '../load/protocol.ts';

/** What the agent is asked to do: the plan as runLoad takes it, and how warmup ends. */
export interface AgentPlan {
  plan: LoadPlan;
  /**
   * true: warmup lasts from `warmupSec` until the engine's steady-state rule (engine/steady-state.ts
   * `isWarm`, the same code the engine uses locally) says warm, or `maxWarmupSec`. false: `warmupSec` exactly.
   */
  adaptiveWarmup: boolean;
}

/** The environment variable the plan travels in (JSON of AgentPlan); argv[2] works too. */
export const PLAN_ENV = 'RIGHTSIZE_LOAD_PLAN';
/** Linux refuses one environment string over 128 KiB (MAX_ARG_STRLEN): a plan must fit, CSV columns and all. */
export const MAX_PLAN_BYTES = 128 * 1024 - PLAN_ENV.length - 2;

/** The plan as its variable's value; an error saying what to shrink when it cannot travel that way. */
export function planEnvValue(plan: unknown): string {
  const text = JSON.stringify(plan);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_PLAN_BYTES)
    throw new Error(
      `the load plan is ${Math.ceil(bytes / 1024)} KiB, over the ${Math.floor(MAX_PLAN_BYTES / 1024)} KiB a load ` +
        "agent's environment takes: its requests' CSV files are too large to send elsewhere; use fewer rows",
    );
  return text;
}

export type AgentLine =
  /** One merged second of every load thread, exactly as runLoad's onSecond gets it. */
  | { type: 'second'; warmup: boolean; s: LoadSecond }
  /** The end: the result as runLoad returns it, plus what runLoadDetailed adds. `cancelled`: stopped by SIGTERM. */
  | { type: 'result'; result: LoadResult; threadElu: number[]; loadCpuSec: number; cancelled: boolean }
  /** The load could not run (bad plan, a thread failed): the agent exits non-zero after it. */
  | { type: 'error'; message: string };

/** The plan, or why it cannot be one: a clear message instead of a thread failing later. */
export function readPlan(text: string | undefined): AgentPlan {
  if (!text) throw new Error(`no load plan: set ${PLAN_ENV} (or the first argument) to the plan's JSON`);
  let p: unknown;
  try {
    p = JSON.parse(text);
  } catch (e) {
    throw new Error(`the load plan is not JSON: ${(e as Error).message}`);
  }
  const a = p as Partial<AgentPlan>;
  const plan = a?.plan;
  const missing = !plan
    ? ['plan']
    : (['host', 'port', 'requests', 'load', 'durationSec', 'warmupSec', 'timeoutSec'] as const).filter(
        (k) => plan[k] === undefined,
      );
  if (missing.length) throw new Error(`the load plan lacks ${missing.join(', ')}`);
  return { plan: plan!, adaptiveWarmup: a.adaptiveWarmup === true };
}

export function agentLine(m: AgentLine): string {
  return `${JSON.stringify(m)}\n`;
}

/** A line that is not one of ours: Node's own warnings, or output cut short. Kept for the error message. */
export interface NoiseLine {
  type: 'noise';
  text: string;
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** One line as a message, or as noise when it is not a well-formed message. */
export function parseAgentLine(line: string): AgentLine | NoiseLine {
  const text = line.trim();
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return { type: 'noise', text };
  }
  if (!isObj(m)) return { type: 'noise', text };
  switch (m.type) {
    case 'second':
      if (typeof m.warmup === 'boolean' && isObj(m.s) && typeof m.s.t === 'number' && typeof m.s.requests === 'number')
        return m as AgentLine;
      break;
    case 'result':
      if (isObj(m.result) && typeof m.result.requests === 'number' && Array.isArray(m.threadElu))
        return { cancelled: false, loadCpuSec: 0, ...m } as AgentLine;
      break;
    case 'error':
      return {
        type: 'error',
        message: typeof m.message === 'string' ? m.message : 'the load agent failed without saying why',
      };
  }
  return { type: 'noise', text };
}

/** Splits a byte stream into lines and parses each; a line split across chunks is joined first. */
export class LineParser {
  private buf = '';
  private readonly decoder = new StringDecoder('utf8');

  push(chunk: Buffer | string): (AgentLine | NoiseLine)[] {
    this.buf += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const out: (AgentLine | NoiseLine)[] = [];
    for (let nl = this.buf.indexOf('\n'); nl >= 0; nl = this.buf.indexOf('\n')) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (line.trim()) out.push(parseAgentLine(line));
    }
    return out;
  }

  /** At the end of the stream: a last line without its newline. */
  end(): (AgentLine | NoiseLine)[] {
    const rest = this.buf + this.decoder.end();
    this.buf = '';
    return rest.trim() ? [parseAgentLine(rest)] : [];
  }
}
