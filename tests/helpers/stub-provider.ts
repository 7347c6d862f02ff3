// A Provider for unit tests of the run loop (runMatrix / runSession → runStoredCell → runCell →
// measureLoad) without Docker. Each target it provisions is a real HTTP server in this process on
// 127.0.0.1 (an ephemeral port): readiness is a real GET of the app's health path, the load is the
// real load runner (its worker threads, real connections and requests), and removing a target
// closes its server. Only the cgroup is made up: a steady reading a second (a fifth of a core, 40 MB
// under the cell's cap), as a container under a light load would give. Each answer waits a few
// milliseconds (`answerDelayMs`): a closed-model load then makes a few hundred requests a second, not
// as many as two cores allow, so a test's cells leave the CPU to the other test files running beside
// it. It keeps every target it started, so a test can ask what a run left (`left(runId)`: the stub's
// `docker ps` for the run).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import type { LoadCallbacks } from '../../src-main/load/runner.ts';
import { runLoad } from '../../src-main/load/runner.ts';
import type { LoadPlan } from '../../src-main/load/protocol.ts';
import type { ExitInfo } from '../../src-main/model/types.ts';
import {
  HOST_CPU_ELSEWHERE,
  type LoadOutcome,
  type Provider,
  type ProviderCheck,
  type ProvisionedTarget,
  type StatsReading,
  type TargetSpec,
} from '../../src-main/providers/provider.ts';

/** One target the stub started: its spec, its server, and who removed it (if anyone yet). */
export interface StubTarget {
  id: string;
  spec: TargetSpec;
  port: number;
  /** Requests it answered (health checks included). */
  answered: number;
  /** 'cell': the cell runner's teardown; 'run': the end-of-run removeRun. */
  removedBy?: 'cell' | 'run';
}

/** Cumulative readings a target's "cgroup" gives: 0.2 cores busy, 40 MB in use. */
const BUSY_CORES = 0.2;
const MEM_BYTES = 40 * 2 ** 20;

export class StubProvider implements Provider {
  readonly kind = 'docker' as const;
  readonly name = 'stub';
  /** The cells' CPU is made up here: no cell can be flagged host-busy from this machine's readings. */
  readonly hostCpu = HOST_CPU_ELSEWHERE;
  /** Every target started, in order. */
  readonly targets: StubTarget[] = [];
  private readonly servers = new Map<string, http.Server>();
  private next = 1;

  /** Every in-place change of a target's CPU cap (`setCpuMillis`), in order, where the stub was given one. */
  readonly cpuChanges: { id: string; millis: number; atMs: number }[] = [];

  /**
   * `answerDelayMs`: how long each answer waits (0: at once, as fast as the cores allow), or per target. `setCpu`: its
   * targets can change their cap in place (absent: they cannot), given the change and how many that target was asked
   * before (refused ones included); it may throw to refuse it. `busyCores`: the CPU its targets' readings report.
   */
  constructor(
    private readonly o: {
      answerDelayMs?: number | ((spec: TargetSpec) => number);
      setCpu?: (millis: number, nth: number) => Promise<void>;
      /** The CPU its targets' readings say they use, in cores (default BUSY_CORES). */
      busyCores?: number;
    } = {},
  ) {}

  async check(): Promise<ProviderCheck> {
    return {
      ok: true,
      problems: [],
      nodes: [{ name: 'stub-node', cpus: os.cpus().length, memoryBytes: os.totalmem(), free: true }],
      version: 'stub',
    };
  }

  /** Nothing to build or ship: the "image" is this process. */
  async prepareImage(localTag: string): Promise<string> {
    return localTag;
  }

  async sweep(): Promise<string[]> {
    return [];
  }

  async provision(spec: TargetSpec): Promise<ProvisionedTarget> {
    const id = `stub-${this.next++}`;
    const health = spec.health ?? '/health';
    const record: StubTarget = { id, spec, port: 0, answered: 0 };
    const delayMs = typeof this.o.answerDelayMs === 'function' ? this.o.answerDelayMs(spec) : (this.o.answerDelayMs ?? 5);
    const server = http.createServer((req, res) => {
      record.answered++;
      res.setHeader('content-type', 'text/plain');
      const body = req.url === health ? 'ok' : 'Hello, world!';
      if (delayMs > 0) setTimeout(() => res.destroyed || res.end(body), delayMs);
      else res.end(body);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    record.port = (server.address() as AddressInfo).port;
    this.targets.push(record);
    this.servers.set(id, server);
    const startedAt = Date.now();
    const reading = (atMs: number): StatsReading => ({
      atMs,
      cpuNs: Math.round((atMs - startedAt) * 1e6 * (this.o.busyCores ?? BUSY_CORES)),
      memBytes: MEM_BYTES,
      memUsageBytes: MEM_BYTES,
      memLimitBytes: spec.memoryMb * 2 ** 20,
      throttledPeriods: 0,
      throttledNs: 0,
    });
    const exit: ExitInfo = { oomKilled: false, exitCode: null, restarts: 0 };
    let attempts = 0; // this target's cap changes asked, refused ones included
    return {
      id,
      address: { host: '127.0.0.1', port: record.port },
      exited: new Promise<number>(() => {}), // a server in this process does not exit by itself
      stats: async (onReading) => {
        onReading(reading(Date.now()));
        const timer = setInterval(() => onReading(reading(Date.now())), 1000);
        return () => clearInterval(timer);
      },
      waitReady: async ({ deadlineMs }) => {
        const t0 = Date.now();
        const res = await fetch(`http://127.0.0.1:${record.port}${health}`, { signal: AbortSignal.timeout(deadlineMs) });
        if (!res.ok) throw new Error(`${health} answered ${res.status}`);
        await res.text();
        return { ms: Date.now() - t0 };
      },
      ...(this.o.setCpu
        ? {
            setCpuMillis: async (millis: number) => {
              await this.o.setCpu!(millis, attempts++);
              this.cpuChanges.push({ id, millis, atMs: Date.now() });
            },
          }
        : {}),
      logTail: async () => '',
      exitInfo: async () => exit,
      remove: () => this.remove(record, 'cell'),
    };
  }

  /** What a run left, as the end of the run removes it. */
  async removeRun(runId: string): Promise<string[]> {
    const gone: string[] = [];
    for (const t of this.left(runId)) {
      await this.remove(t, 'run');
      gone.push(`target ${t.id}`);
    }
    return gone;
  }

  /** The cell's load: the real load runner's threads against the target's server. */
  async runLoad(_target: ProvisionedTarget, plan: LoadPlan, cb: LoadCallbacks): Promise<LoadOutcome> {
    return { result: await runLoad(plan, cb) };
  }

  /** Targets of the run (its `labels.run`) still up: what `docker ps --filter label=…run=…` would list. */
  left(runId: number | string): StubTarget[] {
    return this.targets.filter((t) => t.spec.labels.run === String(runId) && !t.removedBy);
  }

  /** Every target of the run, removed or not. */
  started(runId: number | string): StubTarget[] {
    return this.targets.filter((t) => t.spec.labels.run === String(runId));
  }

  /** Closes whatever is still up (a test's end, whatever happened). */
  async close(): Promise<void> {
    for (const t of this.targets) if (!t.removedBy) await this.remove(t, 'run');
  }

  private async remove(t: StubTarget, by: 'cell' | 'run'): Promise<void> {
    const server = this.servers.get(t.id);
    if (!server) return; // removed already: as `docker rm -f` of a gone container, nothing to do
    this.servers.delete(t.id);
    t.removedBy = by;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
