// `rightsize targets add|ls|rm|check`: where cells can run. Every problem of an `add` is reported at
// once, named by the option that sets it; nothing is saved until all are fixed. Only URLs and file
// paths are stored, never key material.
import type { Problem } from '../../contract/api.ts';
import type { Lab } from '../../service/lab.ts';
import { checkLines, resolveTarget, TargetRegistry, UnknownTargetError } from '../../targets/registry.ts';
import type { Provider } from '../../providers/provider.ts';
import { LOCAL_TARGET, validateTarget } from '../../targets/settings.ts';
import type { Store } from '../../store/store.ts';
import { withLab as withLabAs, type GlobalOptions } from '../context.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { table } from '../format.ts';

export interface TargetAddOptions extends GlobalOptions {
  docker?: string;
  tls?: string;
  sshKey?: string;
  swarm?: string;
  node?: string[];
  kubernetes?: boolean;
  kubeconfig?: string;
  context?: string;
  namespacePrefix?: string;
  registry?: string;
  registryAuth?: string;
}

/** Each setting as the option that sets it, so a problem names what to retype. */
const FLAG: Record<string, string> = {
  name: 'NAME',
  kind: '--docker | --swarm | --kubernetes',
  'settings.url': '--docker',
  'settings.tlsDir': '--tls',
  'settings.sshKeyFile': '--ssh-key',
  'settings.managerUrl': '--swarm',
  'settings.nodeEngines': '--node',
  'settings.kubeconfig': '--kubeconfig',
  'settings.context': '--context',
  'settings.namespacePrefix': '--namespace-prefix',
  'settings.registry': '--registry',
  'settings.registryAuth': '--registry-auth',
};
const flagOf = (p: string): string =>
  FLAG[p] ?? (p.startsWith('settings.nodeEngines.') ? `--node ${p.slice('settings.nodeEngines.'.length)}=…` : p);

/** Which options each kind takes (the others are a mistake, reported with the rest). */
const KIND_FLAGS: Record<'docker' | 'swarm' | 'kubernetes', (keyof TargetAddOptions)[]> = {
  docker: ['tls', 'sshKey'],
  swarm: ['tls', 'node'],
  kubernetes: ['kubeconfig', 'context', 'namespacePrefix', 'registry', 'registryAuth'],
};
const OPTION_NAME: Partial<Record<keyof TargetAddOptions, string>> = {
  tls: '--tls',
  sshKey: '--ssh-key',
  node: '--node',
  kubeconfig: '--kubeconfig',
  context: '--context',
  namespacePrefix: '--namespace-prefix',
  registry: '--registry',
  registryAuth: '--registry-auth',
};

/** The engine as a service for one command: contract errors become messages (problems named by option) and exit 2. */
const withLab = <T>(g: GlobalOptions, fn: (lab: Lab) => Promise<T>): Promise<T> =>
  withLabAs(
    g,
    fn,
    (e) => new CliError(e.code === 'INVALID_INPUT' && e.fields.length ? problemsText(e.fields) : e.message, EXIT.usage),
  );

const problemsText = (ps: Problem[]): string =>
  `The target is not valid; nothing was saved:\n${ps.map((p) => `  - ${flagOf(p.path)}: ${p.message}`).join('\n')}`;
const say = (o: GlobalOptions, text: string, json: unknown): void =>
  void process.stdout.write(o.json ? `${JSON.stringify(json, null, 2)}\n` : `${text}\n`);

/**
 * The target the options describe, and the problems only the command line can have (two kinds, a stray option, a bad
 * --node).
 */
export function targetFromOptions(
  name: string,
  o: TargetAddOptions,
): { target: Record<string, unknown>; problems: Problem[] } {
  const problems: Problem[] = [];
  const kinds = (['docker', 'swarm', 'kubernetes'] as const).filter((k) =>
    k === 'kubernetes' ? o.kubernetes : o[k] !== undefined,
  );
  if (kinds.length > 1)
    problems.push({ path: 'kind', message: `give one kind, not ${kinds.map((k) => `--${k}`).join(' and ')}.` });
  const kind = kinds[0];
  if (!kind)
    problems.push({
      path: 'kind',
      message:
        'say what it is: --docker URL, --swarm MANAGER_URL --node NODE=URL…, ' +
        'or --kubernetes [--kubeconfig FILE] [--context CTX].',
    });
  if (kind) {
    const takes = KIND_FLAGS[kind].map((x) => OPTION_NAME[x]).join(', ');
    for (const [k, flag] of Object.entries(OPTION_NAME) as [keyof TargetAddOptions, string][]) {
      if (o[k] !== undefined && !KIND_FLAGS[kind].includes(k))
        problems.push({ path: flag, message: `is not used by a ${kind} target (it takes ${takes}).` });
    }
  }
  const nodeEngines: Record<string, string> = {};
  for (const n of o.node ?? []) {
    const eq = n.indexOf('=');
    if (eq < 1)
      problems.push({
        path: '--node',
        message: `takes NODE=URL (a Swarm node's name and its engine URL), not "${n}".`,
      });
    else nodeEngines[n.slice(0, eq)] = n.slice(eq + 1);
  }
  const defined = (x: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(Object.entries(x).filter(([, v]) => v !== undefined));
  const settingsOf: Record<keyof typeof KIND_FLAGS, Record<string, unknown>> = {
    docker: { url: o.docker, tlsDir: o.tls, sshKeyFile: o.sshKey },
    swarm: { managerUrl: o.swarm, tlsDir: o.tls, nodeEngines },
    kubernetes: {
      kubeconfig: o.kubeconfig,
      context: o.context,
      namespacePrefix: o.namespacePrefix,
      registry: o.registry,
      registryAuth: o.registryAuth,
    },
  };
  // No kind given (already a problem above): the Kubernetes settings.
  const settings = defined(settingsOf[kind ?? 'kubernetes']);
  return { target: { name, ...(kind ? { kind } : {}), settings }, problems };
}

export function targetsAddCommand(name: string, o: TargetAddOptions): Promise<number> {
  return withLab(o, async (lab) => {
    const { target, problems } = targetFromOptions(name, o);
    if (problems.length) {
      // Also the engine's verdict on the rest, so every problem shows at once (nothing is saved).
      const v = target.kind
        ? await validateTarget(target, { taken: lab.targets.list().map((t) => t.name) })
        : undefined;
      throw new CliError(problemsText([...problems, ...(v && !v.ok ? v.problems : [])]), EXIT.usage);
    }
    const info = await lab.handlers['targets.add']({ target });
    say(
      o,
      `Added ${info.name} (${info.kind}): ${info.where}.\nCheck it with: rightsize targets check ${info.name}`,
      info,
    );
    return EXIT.ok;
  });
}

export function targetsListCommand(o: GlobalOptions): Promise<number> {
  return withLab(o, async (lab) => {
    const ts = await lab.handlers['targets.list']({});
    say(
      o,
      table(
        ['name', 'kind', 'where'],
        ts.map((t) => [t.name, t.kind, t.where]),
      ),
      ts,
    );
    return EXIT.ok;
  });
}

export function targetsRemoveCommand(name: string, o: GlobalOptions): Promise<number> {
  return withLab(o, async (lab) => {
    const r = await lab.handlers['targets.remove']({ name });
    say(o, `Removed ${name}. Its files (TLS folder, key, kubeconfig) are left as they are.`, r);
    return EXIT.ok;
  });
}

export function targetsCheckCommand(name: string, o: GlobalOptions): Promise<number> {
  return withLab(o, async (lab) => {
    const c = await lab.handlers['targets.check']({ name });
    say(o, checkLines(c).join('\n'), c);
    return c.ok ? EXIT.ok : EXIT.targetNotReady;
  });
}

/**
 * `--target NAME` for `rightsize run` / `size`: the saved target, or 'local' when none is given. An
 * unknown name is a usage error naming the likeliest one and listing the saved ones.
 */
/** The provider behind `--target NAME`: undefined for this machine's engine; an unknown name is a usage error. */
export function targetProviderOption(store: Store, name: string | undefined): Provider | undefined {
  if (name === undefined || name === LOCAL_TARGET) return undefined;
  resolveTargetOption(store, name);
  return new TargetRegistry(store).provider(name);
}

export function resolveTargetOption(store: Store, name: string | undefined): ReturnType<typeof resolveTarget> {
  try {
    return resolveTarget(store, name);
  } catch (e) {
    if (e instanceof UnknownTargetError) throw new CliError(e.message, EXIT.usage);
    throw e;
  }
}
