// This machine's engine as a provider, like any other target: containers with real cgroup caps,
// the target and its load threads on separate cores (planned here), the load in this process's
// threads, readiness polled from here, and this host's CPU read for contention (host-busy flags).
import os from 'node:os';
import type Docker from 'dockerode';
import { checkEngine, docker, type EngineInfo } from '../../docker/client.ts';
import { planPlacement } from '../../docker/placement.ts';
import { planReplicaPlacement } from '../../docker/replica-placement.ts';
import { parseCpuList } from '../../common/cpu-list.ts';
import { hostCpuSupported } from '../../load/host-cpu.ts';
import { runLoad, type LoadCallbacks } from '../../load/runner.ts';
import type { LoadPlan } from '../../load/protocol.ts';
import { EngineProvider } from '../docker/provider.ts';
import type { LoadOutcome, Provider, ProviderCheck, ProvisionedTarget, TargetSpec } from '../provider.ts';

/** The engine facts the provider needs: its cores and memory, and whether its bridge IPs route here. */
export type LocalEngine = Pick<EngineInfo, 'bridgeRoutable' | 'cpus' | 'memoryBytes' | 'version'>;

/** Cores and memory both this machine and its engine can give (Docker Desktop's VM may have fewer). */
export function localCapacity(engine: Pick<EngineInfo, 'cpus' | 'memoryBytes'> | null): {
  cores: number;
  memoryBytes: number;
} {
  return {
    cores: Math.min(os.cpus().length, engine?.cpus || Infinity),
    memoryBytes: Math.min(os.totalmem(), engine?.memoryBytes || Infinity),
  };
}

export class LocalEngineProvider extends EngineProvider implements Provider {
  readonly kind = 'local' as const;
  readonly name = 'local';
  /** Its lone targets are this engine's containers (providers/docker/target.ts setCpuMillis). */
  readonly raisesCap = true;
  readonly client: Docker = docker();
  private engine?: LocalEngine;

  /** `engine`: the facts when the caller has them; otherwise the engine is asked on first need. */
  constructor(engine?: LocalEngine) {
    super();
    if (engine) this.engine = engine;
  }

  private async facts(): Promise<LocalEngine> {
    return (this.engine ??= await checkEngine());
  }

  /** A spare core: the next container starts while the one before it is inspected and removed. */
  get prepareAhead(): boolean {
    return localCapacity(this.engine ?? null).cores >= 2;
  }

  /** Read after a target was provisioned (the engine's facts are known by then). */
  get hostCpu(): Provider['hostCpu'] {
    return hostCpuSupported(Boolean(this.engine?.bridgeRoutable));
  }

  /** Always free: the lab lock, not this check, keeps two runs off this machine. */
  async check(): Promise<ProviderCheck> {
    let engine: LocalEngine;
    try {
      engine = await this.facts();
    } catch (e) {
      return { ok: false, problems: [(e as Error).message], nodes: [] };
    }
    const { cores, memoryBytes } = localCapacity(engine);
    return {
      ok: true,
      problems: [],
      nodes: [{ name: os.hostname(), cpus: cores, memoryBytes, free: true }],
      version: engine.version,
    };
  }

  /** Images are built on this engine: nothing to ship. */
  async prepareImage(localTag: string): Promise<string> {
    return localTag;
  }

  async provision(spec: TargetSpec): Promise<ProvisionedTarget> {
    const engine = await this.facts();
    if ((spec.replicas ?? 1) >= 2) return this.provisionReplicas(spec, engine);
    // Cores are pinned only here, where the load shares the machine with the target.
    const place = planPlacement(spec.cpuMillis, localCapacity(engine).cores, Boolean(spec.pinCores));
    const cores = place.targetCpus
      ? [...new Set([...parseCpuList(place.targetCpus), ...(place.loadCpus ? parseCpuList(place.loadCpus) : [])])]
      : undefined;
    return this.startContainer(spec, {
      // Docker Desktop: bridge IPs are behind its VM, so ports are published on 127.0.0.1.
      publish: !engine.bridgeRoutable,
      place,
      cores: localCapacity(engine).cores,
      extra: {
        local: true,
        ...(cores ? { cores } : {}),
        ...(place.warning ? { placementWarning: place.warning } : {}),
      },
    });
  }

  /** R containers, each on cores of its own where this machine has them (else together, said in the warning). */
  private provisionReplicas(spec: TargetSpec, engine: LocalEngine): Promise<ProvisionedTarget> {
    const place = planReplicaPlacement(
      spec.cpuMillis,
      spec.replicas!,
      localCapacity(engine).cores,
      Boolean(spec.pinCores),
    );
    const pinned = [...(place.replicaCpus ?? []), ...(place.loadCpus ? [place.loadCpus] : [])];
    const cores = place.replicaCpus ? [...new Set(pinned.flatMap(parseCpuList))].sort((a, b) => a - b) : undefined;
    return this.startReplicas(spec, place, {
      publish: !engine.bridgeRoutable,
      cores: localCapacity(engine).cores,
      extra: { local: true, ...(cores ? { cores } : {}) },
    });
  }

  /** The load in this process's threads, on the cores provision left it. */
  async runLoad(target: ProvisionedTarget, plan: LoadPlan, cb: LoadCallbacks): Promise<LoadOutcome> {
    const cpus = this.loadCpus.get(target.id);
    // Where a core is spare, the next load's threads are spawned as this one ends.
    return { result: await runLoad({ ...plan, ...(cpus ? { cpus } : {}) }, { ...cb, spareAfter: this.prepareAhead }) };
  }
}

/**
 * This machine's engine as a provider: the process's one Docker client (DOCKER_HOST honoured, the
 * one address rule of docker/client.ts). Given the engine's facts, or asks the engine for them.
 */
export const localProvider = (engine?: LocalEngine): LocalEngineProvider => new LocalEngineProvider(engine);
