// The engine's side of a running load agent, wherever it runs (a container on another engine, a pod
// in a cluster): the plan it is given, and its output turned back into runLoad's callbacks and
// result. The transport (Docker attach, a pod's log stream) only feeds bytes in and says how the
// agent ended; everything the cell runner sees is decided here, once, for every kind of target.
import { isWarm as steadyStateIsWarm } from '../load/warmup.ts';
import type { LoadResult } from '../model/types.ts';
import type { LoadCallbacks } from '../load/runner.ts';
import type { LoadPlan } from '../load/protocol.ts';
import { LineParser, type AgentLine, type AgentPlan, type NoiseLine } from './line-protocol.ts';

export class LoadAgentError extends Error {
  readonly code = 'LOAD_AGENT_FAILED';
}

/** After SIGTERM, how long the agent has to print what it measured before it is given up on. */
export const CANCEL_GRACE_MS = 3000;

/**
 * The plan the agent runs. An adaptive warmup must be the engine's steady-state rule: the agent
 * applies that same rule itself (a function cannot travel to another machine).
 */
export function agentPlanFor(plan: LoadPlan, cb: LoadCallbacks, over: Partial<LoadPlan> = {}): AgentPlan {
  if (cb.isWarm && cb.isWarm !== steadyStateIsWarm) {
    throw new LoadAgentError(
      'a remote load agent decides warmup with the steady-state rule (engine/steady-state.ts isWarm) only',
    );
  }
  // Only a target whose cap changes in place holds its warm-up for the engine, and such a target's load runs here.
  if (cb.warmFrom) throw new LoadAgentError('a remote load agent cannot hold its warm-up for the engine (warmFrom)');
  return { plan: { ...plan, ...over }, adaptiveWarmup: cb.isWarm !== undefined };
}

export interface AgentStreamOptions {
  cb: LoadCallbacks;
  /** Where the agent runs, for messages: "node-2 (tcp://10.0.0.2:2376)", "pod ns/load-3 on worker-a". */
  where: string;
  /** Asks the agent to stop and report (SIGTERM); rejects when it is not running, so nothing will report. */
  terminate: () => Promise<unknown>;
  /** How long a stopped agent has to report; default CANCEL_GRACE_MS. */
  graceMs?: number;
}

/**
 * One agent's output until its result. `onSecond` gets every second as it arrives, in order, warmup
 * ones flagged; `result` is the agent's runLoad result. The signal stops the load (terminate: the
 * agent still reports what it measured, as a stopped local load does), bounded by the grace.
 */
export class AgentStream {
  readonly result: Promise<LoadResult>;
  private readonly parser = new LineParser();
  private readonly noise: string[] = [];
  private readonly errLines: string[] = [];
  private readonly cleanups: (() => void)[] = [];
  private settledFlag = false;
  private stoppingFlag = false;
  private grace?: ReturnType<typeof setTimeout>;
  private resolve!: (r: LoadResult) => void;
  private reject!: (e: Error) => void;

  constructor(private readonly o: AgentStreamOptions) {
    this.result = new Promise<LoadResult>((res, rej) => {
      this.resolve = res;
      this.reject = rej;
    });
    o.cb.signal?.addEventListener('abort', this.stop, { once: true });
  }

  get settled(): boolean {
    return this.settledFlag;
  }

  get stopping(): boolean {
    return this.stoppingFlag;
  }

  /** Runs once the stream settles, either way (destroy the transport's stream). */
  onSettle(fn: () => void): void {
    this.cleanups.push(fn);
  }

  /** The agent's stdout (JSON lines; anything else is kept as noise for the error message). */
  stdout(chunk: Buffer | string): void {
    this.parser.push(chunk).forEach(this.handle);
  }

  /** The agent's stderr: kept for the error message only. */
  stderr(chunk: Buffer | string): void {
    this.errLines.push(
      ...chunk
        .toString()
        .split('\n')
        .filter((l) => l.trim()),
    );
    if (this.errLines.length > 20) this.errLines.splice(0, this.errLines.length - 20);
  }

  /**
   * The output ended: a last line without its newline is read; if no result came, the agent's end
   * (`exitCode`: null when unknown) says why, with its last lines.
   */
  async end(exitCode: () => Promise<number | null>): Promise<void> {
    this.parser.end().forEach(this.handle);
    if (this.settledFlag) return;
    const code = await exitCode().catch(() => null);
    const why = this.stoppingFlag ? 'was stopped' : `exited${code === null ? '' : ` with code ${code}`}`;
    this.fail(`the load agent on ${this.o.where} ${why} before it reported a result${this.tail()}`);
  }

  fail(message: string): void {
    this.settle(() => this.reject(new LoadAgentError(message)));
  }

  /** Stops the load: the agent is asked to report what it measured, within the grace. */
  readonly stop = (): void => {
    if (this.stoppingFlag || this.settledFlag) return;
    this.stoppingFlag = true;
    void this.o.terminate().catch(() => this.fail(`the load on ${this.o.where} was cancelled before the agent ran`));
    const ms = this.o.graceMs ?? CANCEL_GRACE_MS;
    this.grace = setTimeout(
      () => this.fail(`the load agent on ${this.o.where} did not report within ${ms} ms of being stopped`),
      ms,
    );
  };

  private tail(): string {
    const lines = [...this.noise, ...this.errLines].slice(-10);
    return lines.length ? `\n${lines.join('\n')}` : '';
  }

  private settle(fn: () => void): void {
    if (this.settledFlag) return;
    this.settledFlag = true;
    if (this.grace) clearTimeout(this.grace);
    this.o.cb.signal?.removeEventListener('abort', this.stop);
    for (const c of this.cleanups) c();
    fn();
  }

  private readonly handle = (m: AgentLine | NoiseLine): void => {
    if (this.settledFlag) return;
    switch (m.type) {
      case 'second':
        // As runLoad: once stopped, seconds still in flight are not reported.
        if (this.stoppingFlag) return;
        try {
          this.o.cb.onSecond?.(m.s, m.warmup);
        } catch (e) {
          this.stop();
          this.settle(() => this.reject(e instanceof Error ? e : new Error(String(e))));
        }
        return;
      case 'result':
        return this.settle(() => this.resolve(m.result));
      case 'error':
        return this.fail(`load agent on ${this.o.where}: ${m.message}`);
      case 'noise':
        this.noise.push(m.text);
        if (this.noise.length > 20) this.noise.shift();
        return;
    }
  };
}
