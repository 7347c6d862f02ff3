// The connection to one cluster: the user's kubeconfig and context, the typed APIs, and raw GETs
// for the node proxy. @kubernetes/client-node is loaded on first use, so the CLI and the app start
// without it when no Kubernetes target is used.
import http from 'node:http';
import https from 'node:https';
import type { AppsV1Api, AuthorizationV1Api, CoreV1Api, KubeConfig, VersionApi } from '@kubernetes/client-node';

export type K8sModule = typeof import('@kubernetes/client-node');

let loaded: Promise<K8sModule> | undefined;
export const loadK8s = (): Promise<K8sModule> => (loaded ??= import('@kubernetes/client-node'));

/** Where the cluster is: a kubeconfig file and context (the user's), or a KubeConfig already loaded (tests). */
export interface ClusterRef {
  /** A kubeconfig file; default: $KUBECONFIG, then ~/.kube/config (as kubectl). */
  kubeconfigPath?: string;
  /** A context in it; default: its current-context. */
  context?: string;
  kubeConfig?: KubeConfig;
}

export interface Cluster {
  kc: KubeConfig;
  core: CoreV1Api;
  apps: AppsV1Api;
  authz: AuthorizationV1Api;
  version: VersionApi;
  /** The API server's address, for messages. */
  server: string;
  context: string;
}

export async function connect(ref: ClusterRef): Promise<Cluster> {
  const k8s = await loadK8s();
  let kc = ref.kubeConfig;
  if (!kc) {
    kc = new k8s.KubeConfig();
    if (ref.kubeconfigPath) kc.loadFromFile(ref.kubeconfigPath);
    else kc.loadFromDefault();
  }
  if (ref.context) {
    if (!kc.getContextObject(ref.context)) {
      const known = kc.getContexts().map((c) => c.name);
      throw new Error(
        `The kubeconfig has no context "${ref.context}"${known.length ? ` (it has: ${known.join(', ')})` : ''}`,
      );
    }
    kc.setCurrentContext(ref.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error(`The kubeconfig's context "${kc.getCurrentContext()}" names no cluster`);
  return {
    kc,
    core: kc.makeApiClient(k8s.CoreV1Api),
    apps: kc.makeApiClient(k8s.AppsV1Api),
    authz: kc.makeApiClient(k8s.AuthorizationV1Api),
    version: kc.makeApiClient(k8s.VersionApi),
    server: cluster.server,
    context: kc.getCurrentContext(),
  };
}

/** An HTTP error from a raw GET, shaped like the generated client's ApiException (`code`, `body`). */
export class RawHttpError extends Error {
  constructor(
    readonly code: number,
    readonly body: string,
    path: string,
  ) {
    super(`HTTP ${code} from ${path}: ${body.slice(0, 200)}`);
  }
}

/**
 * A GET on the API server with the kubeconfig's credentials (token, client certificate, exec
 * plugin) and TLS settings, returning the body as text. For the node proxy: the generated
 * connectGetNodeProxyWithPath percent-encodes the '/' in `stats/summary`, and its text handling
 * is for JSON; this keeps the path as the kubelet expects it.
 */
export async function rawGet(c: Cluster, path: string, timeoutMs = 10_000): Promise<string> {
  const opts: https.RequestOptions = {};
  await c.kc.applyToHTTPSOptions(opts);
  const url = new URL(c.server.replace(/\/+$/, '') + path);
  const lib = url.protocol === 'http:' ? http : https;
  return new Promise<string>((resolve, reject) => {
    const req = lib.request(
      url,
      {
        method: 'GET',
        agent: opts.agent,
        headers: { ...(opts.headers ?? {}), Accept: '*/*' },
        ...(opts.auth ? { auth: opts.auth } : {}),
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve(body);
          else reject(new RawHttpError(status, body, path));
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () =>
      req.destroy(Object.assign(new Error(`no answer from ${url.host} within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })),
    );
    req.on('error', reject);
    req.end();
  });
}

/** The HTTP status of an API error (ApiException's `code`, or ours), or undefined for a network error. */
export function httpStatus(e: unknown): number | undefined {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'number' ? code : undefined;
}

/** Calls `f`, treating "not found" as done (deleting what is gone already). */
export async function ignore404<T>(f: () => Promise<T>): Promise<T | undefined> {
  try {
    return await f();
  } catch (e) {
    if (httpStatus(e) === 404) return undefined;
    throw e;
  }
}
