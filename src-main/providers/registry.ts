// Every kind of target Rightsize can run cells on, in one table: how its saved settings are checked,
// how it is described in a list, and how its provider is made. This machine's engine is the 'local'
// kind, always there and never saved. Nothing outside providers/ asks which kind a target is: it
// looks the kind up here.
import type Docker from 'dockerode';
import { didYouMean } from '../common/issues.ts';
import { DockerProvider } from './docker/provider.ts';
import { registryAuth } from './kubernetes/registry-push.ts';
import { KubernetesProvider } from './kubernetes/provider.ts';
import { localProvider } from './local/provider.ts';
import type { Provider } from './provider.ts';
import { SwarmProvider } from './swarm/provider.ts';
import {
  defaultKubeconfig,
  engineUrlProblem,
  kubeContexts,
  registryProblem,
  unreadableFile,
  unusableTlsDir,
  type DockerSettings,
  type KubernetesSettings,
  type SwarmSettings,
} from './target-settings.ts';

/** What a settings check may use: absolute paths from the user's folder, and a place for each problem. */
export interface SettingsCheck {
  /** The absolute form of a path the user gave (~ and relative paths resolved). */
  abs(p: string): string;
  more(path: string, message: string | undefined): void;
  env?: NodeJS.ProcessEnv;
}

interface TargetKindEntry<S> {
  /** Checks beyond the shape: URLs that can work, files that exist (paths made absolute in place). */
  check(s: S, c: SettingsCheck): void | Promise<void>;
  /** One line saying where a target of this kind is: URLs and paths, never more. */
  where(s: S): string;
  make(name: string, s: S, source: () => Docker): Provider;
}

interface SavedKinds {
  docker: DockerSettings;
  swarm: SwarmSettings;
  kubernetes: KubernetesSettings;
}

/** A saved target as the registry needs it. */
export type KindAndSettings = {
  [K in keyof SavedKinds]: { name: string; kind: K; settings: SavedKinds[K] };
}[keyof SavedKinds];

export const LOCAL_WHERE = "this machine's Docker engine";

const tlsNote = (dir: string | undefined): string => (dir ? ` (TLS: ${dir})` : '');

export const PROVIDER_KINDS: { [K in keyof SavedKinds]: TargetKindEntry<SavedKinds[K]> } = {
  docker: {
    check: (s, { abs, more }) => {
      more('settings.url', engineUrlProblem(s.url, { tls: Boolean(s.tlsDir), sshKey: Boolean(s.sshKeyFile) }));
      if (s.tlsDir) more('settings.tlsDir', unusableTlsDir((s.tlsDir = abs(s.tlsDir))));
      if (s.sshKeyFile) more('settings.sshKeyFile', unreadableFile((s.sshKeyFile = abs(s.sshKeyFile))));
    },
    where: (s) => `${s.url}${tlsNote(s.tlsDir)}${s.sshKeyFile ? ` (key: ${s.sshKeyFile})` : ''}`,
    make: (name, s, source) => new DockerProvider({ name, connection: s, source: source() }),
  },
  swarm: {
    check: (s, { abs, more }) => {
      more('settings.managerUrl', engineUrlProblem(s.managerUrl, { tls: Boolean(s.tlsDir) }));
      for (const [node, url] of Object.entries(s.nodeEngines))
        more(`settings.nodeEngines.${node}`, engineUrlProblem(url, { tls: Boolean(s.tlsDir) }));
      if (s.tlsDir) more('settings.tlsDir', unusableTlsDir((s.tlsDir = abs(s.tlsDir))));
    },
    where: (s) =>
      `Swarm manager ${s.managerUrl}, ${Object.keys(s.nodeEngines).length} node engine(s)${tlsNote(s.tlsDir)}`,
    make: (name, s, source) => {
      const tls = s.tlsDir ? { tlsDir: s.tlsDir } : {};
      const nodeEngines = Object.fromEntries(
        Object.entries(s.nodeEngines).map(([node, url]) => [node, { url, ...tls }]),
      );
      return new SwarmProvider({ name, manager: { url: s.managerUrl, ...tls }, nodeEngines, source: source() });
    },
  },
  kubernetes: {
    check: checkKubernetes,
    where: (s) =>
      `kubeconfig ${s.kubeconfig ?? `(default: ${defaultKubeconfig()})`}` +
      `${s.context ? `, context ${s.context}` : ', its current context'}` +
      `${s.registry ? `, images via ${s.registry}` : ', no registry'}`,
    make: (name, s) =>
      new KubernetesProvider({
        name,
        ...(s.kubeconfig ? { kubeconfigPath: s.kubeconfig } : {}),
        ...(s.context ? { context: s.context } : {}),
        ...(s.namespacePrefix ? { namespacePrefix: s.namespacePrefix } : {}),
        ...(s.registry
          ? { registry: { registry: s.registry, ...(s.registryAuth ? { authFile: s.registryAuth } : {}) } }
          : {}),
      }),
  },
};

async function checkKubernetes(s: KubernetesSettings, { abs, more, env }: SettingsCheck): Promise<void> {
  const file = s.kubeconfig ? (s.kubeconfig = abs(s.kubeconfig)) : defaultKubeconfig(env);
  const where = 'settings.kubeconfig';
  const unreadable = unreadableFile(file);
  if (unreadable) {
    const noDefault = `no kubeconfig given, and the default one (${file}) cannot be used: ${unreadable}.`;
    more(where, s.kubeconfig ? unreadable : `${noDefault} Give --kubeconfig FILE.`);
    return;
  }
  const ctx = await kubeContexts(file);
  if ('error' in ctx) more(where, ctx.error);
  else if (s.context && !ctx.contexts.includes(s.context)) {
    const theirs = ctx.contexts.length ? ` Its contexts: ${ctx.contexts.join(', ')}.` : ' It has no contexts.';
    more('settings.context', `${file} has no context "${s.context}".${didYouMean(s.context, ctx.contexts)}${theirs}`);
  } else if (!s.context && ctx.contexts.length === 0) more(where, `${file} has no contexts.`);
  if (s.registry) more('settings.registry', registryProblem(s.registry));
  if (!s.registryAuth) return;
  if (!s.registry)
    more('settings.registryAuth', 'is the login of a registry: give the registry too (settings.registry).');
  const unreadableAuth = unreadableFile((s.registryAuth = abs(s.registryAuth)));
  if (unreadableAuth) more('settings.registryAuth', unreadableAuth);
  else if (s.registry && !registryProblem(s.registry)) {
    try {
      registryAuth({ registry: s.registry, authFile: s.registryAuth });
    } catch (e) {
      more('settings.registryAuth', (e as Error).message);
    }
  }
}

/** A saved target's description, by its kind. */
export const whereOf = (t: KindAndSettings): string =>
  (PROVIDER_KINDS[t.kind].where as (s: unknown) => string)(t.settings);

/** The provider of a target: this machine's engine for none, else the saved target's kind makes it. */
export function makeProvider(t: KindAndSettings | null, source: () => Docker): Provider {
  if (!t) return localProvider();
  return (PROVIDER_KINDS[t.kind].make as (n: string, s: unknown, src: () => Docker) => Provider)(
    t.name,
    t.settings,
    source,
  );
}
