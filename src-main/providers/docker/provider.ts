// The Docker provider: this machine's engine ('local', today's behaviour) or a remote one reached by
// URL ('docker'). Cells run as containers with real cgroup caps; images are shipped to a remote
// engine with `docker save | docker load` when it lacks them (its own image cache).
import type Docker from 'dockerode';
import { withTimeout } from '../../docker/client.ts';
import { TargetContainer } from '../../docker/containers.ts';
import { LABEL, PRODUCT } from '../../docker/labels.ts';
import { listOwnContainers, sweepOrphans } from '../../docker/sweep.ts';
import type { Provider, ProviderCheck, ProvisionedTarget, TargetKind, TargetSpec } from '../provider.ts';
import { connect, connectionProblem, engineHost, type DockerConnection } from './connection.ts';
import { shipImage } from './ship-image.ts';
import { containerTarget } from './target.ts';

/** A connection check must answer quickly: a dead host must not hang the Builder. */
const CHECK_TIMEOUT_MS = 5000;

export interface DockerProviderOptions {
  name: string;
  kind: Extract<TargetKind, 'local' | 'docker'>;
  connection: DockerConnection;
  /** Where images come from when this engine lacks them (this machine's engine). */
  source?: Docker;
  /** An existing client for the connection (this machine's engine: the process's one client). */
  client?: Docker;
  /** Local engine: publish ports on 127.0.0.1 instead of using bridge IPs (Docker Desktop's VM). */
  publish?: boolean;
}

export class DockerProvider implements Provider {
  readonly kind: 'local' | 'docker';
  readonly name: string;
  readonly client: Docker;
  private readonly host: string;

  constructor(private readonly o: DockerProviderOptions) {
    this.kind = o.kind;
    this.name = o.name;
    this.client = o.client ?? connect(o.connection);
    this.host = engineHost(o.connection.url);
  }

  async check(): Promise<ProviderCheck> {
    try {
      const info = (await withTimeout(this.client.info(), CHECK_TIMEOUT_MS, 'no answer')) as { Name: string; NCPU: number; MemTotal: number; ServerVersion: string };
      // Busy: another Rightsize session measuring there (its lab lock, or its targets running).
      const running = await this.client.listContainers({ filters: JSON.stringify({ label: [`${LABEL.product}=${PRODUCT}`] }) });
      const free = running.length === 0;
      return {
        ok: free,
        problems: free ? [] : [`no nodes free: ${running.length} Rightsize container(s) already run on ${info.Name} (${this.o.connection.url})`],
        nodes: [{ name: info.Name, cpus: Number(info.NCPU), memoryBytes: Number(info.MemTotal), free }],
        version: String(info.ServerVersion),
      };
    } catch (e) {
      return { ok: false, problems: [connectionProblem(this.o.connection.url, e)], nodes: [] };
    }
  }

  async prepareImage(localTag: string): Promise<string> {
    await shipImage(localTag, this.client, this.o.source, `${this.name} (${this.o.connection.url})`);
    return localTag;
  }

  async provision(spec: TargetSpec): Promise<ProvisionedTarget> {
    const local = this.kind === 'local';
    const c = await TargetContainer.start(
      {
        image: spec.image, launch: spec.launch, port: spec.port, env: spec.env, cpuMillis: spec.cpuMillis, memoryMb: spec.memoryMb,
        // A remote engine's bridge IPs are not routable from here: publish on its address.
        ...(local ? { publish: Boolean(this.o.publish) } : { publish: true, publishOn: this.host }),
        ...(local && spec.cpuset ? { cpuset: spec.cpuset } : {}),
        // Cells run outside a stored run (tests, benchmarks) carry no run or cell label.
        labels: { app: spec.labels.app, ...(spec.labels.run ? { run: spec.labels.run } : {}), ...(spec.labels.cell ? { cell: spec.labels.cell } : {}) },
      },
      this.client,
    );
    return containerTarget(c, { remove: () => c.remove(), local });
  }

  async removeRun(runId: string): Promise<string[]> {
    const ids = await listOwnContainers({ run: runId }, this.client);
    await Promise.all(ids.map((id) => this.client.getContainer(id).remove({ force: true, v: true }).catch(() => {})));
    return ids.map((id) => `container ${id.slice(0, 12)} on ${this.name}`);
  }

  async sweep(): Promise<string[]> {
    // sweepOrphans judges sessions with this machine's process table: every session label is ours.
    return (await sweepOrphans(this.client)).map((id) => `container ${id.slice(0, 12)} on ${this.name}`);
  }
}
