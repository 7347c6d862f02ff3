// This machine's Docker engine as the UI sees it: checked now and again (often while it is down,
// rarely while it is up), so a banner clears by itself once Docker comes up, and published as an
// EngineStatus on the bus whenever it changes.
import type { EventEmitter } from 'node:events';
import type { EngineStatus } from '../contract/api.ts';
import { checkEngine, type EngineInfo } from '../docker/client.ts';
import { hostLimits } from '../engine/host.ts';
import { LARGE_MATRIX_CELLS, MIN_MEMORY_MB } from '../engine/matrix.ts';

export interface PollerOptions {
  /** Where 'status' events go. */
  bus: EventEmitter;
  recheckMs: { down: number; up: number };
  /** The run in progress, for the status. */
  activeRunId: () => number | null;
  /** What start-up found: the engine when Docker answered, else why not. */
  engine?: EngineInfo;
  error?: string;
}

export class StatusPoller {
  /** The engine as last checked; null while Docker does not answer. */
  engine: EngineInfo | null;
  private current: EngineStatus;
  private timer?: NodeJS.Timeout;

  constructor(private readonly o: PollerOptions) {
    this.engine = o.engine ?? null; // start-up has just checked Docker: no need to ask again
    this.current = this.describe(o.error ?? null);
  }

  get status(): EngineStatus {
    return this.current;
  }

  /** Publishes what start-up found and schedules the next check. */
  start(): void {
    const error = this.engine ? null : (this.o.error ?? 'Docker is not available');
    this.schedule(error);
    this.publish(error);
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  /** Why runs and builds cannot start now (Docker does not answer), or null when they can. */
  unavailable(): string | null {
    if (this.engine) return null;
    return this.current.docker.ok ? 'Docker is not available' : this.current.docker.error;
  }

  /** The status again with the same Docker answer (the active run changed). */
  refresh(): EngineStatus {
    return this.publish(this.current.docker.ok ? null : this.current.docker.error);
  }

  /** Checks Docker now, then again later: often while it is down, rarely while it is up. */
  async recheck(): Promise<EngineStatus> {
    clearTimeout(this.timer);
    const error = await this.checkDocker();
    this.schedule(error);
    return this.publish(error);
  }

  private describe(error: string | null): EngineStatus {
    const l = hostLimits(this.engine, []); // only cores and memory: no need to read the app library
    const e = this.engine;
    return {
      docker:
        e && !error
          ? { ok: true, version: e.version, cpus: e.cpus, memoryBytes: e.memoryBytes, cgroupVersion: e.cgroupVersion }
          : { ok: false, error: error ?? 'not checked yet' },
      limits: {
        cores: l.cores,
        memoryMb: l.memoryMb,
        minMemoryMb: MIN_MEMORY_MB,
        largeMatrixCells: LARGE_MATRIX_CELLS,
      },
      activeRunId: this.o.activeRunId(),
      checkedAt: new Date().toISOString(),
    };
  }

  /** The status now; sent on the bus only when something but the time changed. */
  private publish(error: string | null): EngineStatus {
    const before = JSON.stringify({ ...this.current, checkedAt: '' });
    this.current = this.describe(error);
    if (JSON.stringify({ ...this.current, checkedAt: '' }) !== before) this.o.bus.emit('status', this.current);
    return this.current;
  }

  /** Asks Docker now; the error, or null when it answered. */
  private async checkDocker(): Promise<string | null> {
    try {
      this.engine = await checkEngine();
      return null;
    } catch (e) {
      this.engine = null;
      return (e as Error).message;
    }
  }

  /** The next check: soon while Docker is down, rarely while it is up. */
  private schedule(error: string | null): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.recheck(), error ? this.o.recheckMs.down : this.o.recheckMs.up);
    this.timer.unref();
  }
}
