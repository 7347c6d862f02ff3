// An app tried once before any matrix: its image built, one container started (one worker, modest
// caps, no core pinning), the health path and each request asked a few times, and what answered
// said with what to change. It takes the lab like a build (an image build and a running server
// would disturb a measurement), and its container carries this session's labels, so the reaper or
// the next sweep removes it if this process dies; otherwise it is removed here, whatever happened.
import { settleDependencyImages } from '../docker/dependency-images.ts';
import { ownCommand, type AppDefinition } from '../apps/catalog.ts';
import { readMixData } from '../apps/mix-data.ts';
import { compileMix, ConnectionMix } from '../mix/connection.ts';
import { stepsOf } from '../mix/routes.ts';
import { isExpected, trySuggestions, USUAL_HEALTH_PATHS, type TryOutResult, type TryProbe } from '../apps/try-out.ts';
import { ensureAppImage, type AppImage } from '../docker/app-image.ts';
import type { BaseStrategy } from '../docker/base-image.ts';
import { withTimeout, type EngineInfo } from '../docker/client.ts';
import { withBuildSignal } from '../docker/image-build.ts';
import { enterLab } from '../lab-lock/enter-lab.ts';
import { localProvider } from '../providers/local/provider.ts';
import type { Provider, ProvisionedTarget } from '../providers/provider.ts';
import { currentSession } from '../session/session.ts';
import { firstAnswer, probeOnce, type ProbeAddress, type ProbeRequest } from './try-out-probe.ts';
import { linkEnv, linkSpec, runCertificate } from '../tls/certificate.ts';
import { tryLink } from '../apps/served-links.ts';

export interface TryOutOptions {
  engine: EngineInfo;
  /** Who holds the lab meanwhile, in words. */
  what: string;
  strategy?: BaseStrategy;
  signal?: AbortSignal;
  onLog?: (line: string) => void;
  /** Where the container runs (default: this machine's engine). */
  provider?: Provider;
  /** How long to wait for a first answer (default 30 s, as a cell's readiness). */
  startDeadlineMs?: number;
  /** Attempts per path (default 3). */
  attempts?: number;
}

/** Modest caps: enough for most servers to start; a try-out measures nothing. */
const TRY_CPU_MILLIS = 1000;
const TRY_MEMORY_MB = 1024;
const PROBE_TIMEOUT_MS = 5000;

export async function tryOutApp(app: AppDefinition, o: TryOutOptions): Promise<TryOutResult> {
  const { base, lease, noReaper } = await enterLab(o.engine, {
    what: o.what,
    ...(o.strategy ? { strategy: o.strategy } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.onLog ? { onLog: o.onLog } : {}),
  });
  if (noReaper) o.onLog?.(`warning: ${noReaper}; if this process dies, the next Rightsize start removes what it left`);
  try {
    let image: AppImage;
    try {
      image = await withBuildSignal(o.signal, () => ensureAppImage(app, () => Promise.resolve(base), o.onLog));
    } catch (e) {
      if (o.signal?.aborted) throw e;
      return failed(app, '', false, `the image did not build: ${(e as Error).message.split('\n')[0]}`);
    }
    o.onLog?.(image.built ? `built ${image.tag}` : `${image.tag} is up to date`);
    return await tryImage(app, image, o);
  } finally {
    await lease.release().catch(() => {});
  }
}

function failed(app: AppDefinition, image: string, built: boolean, why: string): TryOutResult {
  return {
    app: app.name,
    ok: false,
    image,
    built,
    answered: false,
    waitedSec: 0,
    probes: [],
    suggestions: [],
    logTail: [],
    failed: why,
  };
}

async function tryImage(app: AppDefinition, image: AppImage, o: TryOutOptions): Promise<TryOutResult> {
  const provider = o.provider ?? localProvider(o.engine);
  const src = app.source;
  // An app that serves HTTPS or HTTP/2 itself is tried as its cells run: the certificate a cell gets, asked over
  // the link it serves (HTTP/2 where it says so).
  const link = tryLink(app);
  let target: ProvisionedTarget;
  try {
    const [settled] = await settleDependencyImages([app], o.onLog);
    const dependencies = settled!.dependencies;
    target = await provider.provision({
      image: image.tag,
      launch: {
        mode: ownCommand(src) ? 'image' : 'single',
        workers: 1,
        entry: image.entry,
        name: app.name,
        ...(src.kind === 'folder' ? { args: src.args } : {}),
        ...(ownCommand(src) ? { workersEnv: src.workersEnv } : {}),
      },
      port: app.port,
      health: app.health,
      env: { ...app.env, ...linkEnv(link, link.tls ? await runCertificate('') : undefined) },
      ...linkSpec(link),
      cpuMillis: TRY_CPU_MILLIS,
      memoryMb: TRY_MEMORY_MB,
      ...(dependencies?.length ? { dependencies } : {}),
      pinCores: false,
      labels: { run: '', cell: '', app: app.name, session: currentSession() },
    });
  } catch (e) {
    return failed(app, image.tag, image.built, `the container did not start: ${(e as Error).message}`);
  }
  try {
    return await askPaths(app, image, target, o);
  } finally {
    await withTimeout(target.remove(), 20_000, 'no answer').catch((e: Error) =>
      o.onLog?.(`could not remove ${target.id.slice(0, 12)} (${e.message}): the next sweep removes it`),
    );
  }
}

/**
 * Each request of the app's mix, in turn, as one connection would send them: values drawn, a sequence's steps in
 * order with their captures passed on. An answer counts as the load would count it (status, capture).
 */
async function askMix(
  app: AppDefinition,
  addr: ProbeAddress,
  attempts: number,
  signal: AbortSignal | undefined,
): Promise<TryProbe[]> {
  const data = readMixData(app.requests, app.dir);
  if ('problems' in data) throw new Error(data.problems.join('; '));
  const host = `${addr.host}:${addr.port}`;
  const walk = new ConnectionMix(compileMix({ entries: app.requests, csv: data.csv }, host, true), 0, 1);
  const steps = app.requests.flatMap(stepsOf).length;
  const byStep = new Map<unknown, TryProbe>();
  for (let i = 0; i < attempts * steps && !signal?.aborted; i++) {
    const { out, request } = walk.nextDrawn();
    const r = { ...request, headers: Object.fromEntries(request.headers), body: request.body || undefined };
    const a = await probeOnce(addr, r, PROBE_TIMEOUT_MS);
    const why = a.status !== undefined ? walk.answered(out, a.status, a.body ?? '', a.rawHeaders ?? []) : a.error;
    const expected = out.step.status ?? '2xx';
    const p = byStep.get(out.step) ?? {
      kind: 'request',
      method: r.method,
      path: r.path,
      expected,
      answers: [],
      ok: true,
    };
    byStep.set(out.step, p);
    const capture = why?.startsWith('capture ') ? why : undefined;
    p.answers.push({
      ...(a.status !== undefined ? { status: a.status } : {}),
      ...(a.ms !== undefined ? { ms: a.ms } : {}),
      ...(a.error ? { error: a.error } : {}),
      ...(capture ? { why: capture } : {}),
    });
    p.ok &&= why === undefined;
  }
  return [...byStep.values()];
}

async function askPaths(
  app: AppDefinition,
  image: AppImage,
  target: ProvisionedTarget,
  o: TryOutOptions,
): Promise<TryOutResult> {
  let exitCode: number | undefined;
  void target.exited.then((c) => (exitCode = c >= 0 ? c : undefined));
  const address = { ...target.address, ...linkSpec(tryLink(app)) };
  const deadlineMs = o.startDeadlineMs ?? 30_000;
  const t0 = performance.now();
  const startMs = await firstAnswer(address, app.health, {
    deadlineMs,
    exited: target.exited,
    ...(o.signal ? { signal: o.signal } : {}),
  });
  const waitedSec = (performance.now() - t0) / 1000;
  const probes: TryProbe[] = [];
  if (startMs !== undefined) {
    const attempts = o.attempts ?? 3;
    const ask = async (kind: TryProbe['kind'], r: ProbeRequest, expected: TryProbe['expected']): Promise<TryProbe> => {
      const answers = [];
      for (let i = 0; i < attempts && !o.signal?.aborted; i++)
        answers.push(await probeOnce(address, r, PROBE_TIMEOUT_MS));
      const ok = answers.length > 0 && answers.every((a) => isExpected(a.status, expected));
      return { kind, method: r.method, path: r.path, expected, answers, ok };
    };
    probes.push(await ask('health', { method: 'GET', path: app.health }, '2xx'));
    probes.push(...(await askMix(app, address, attempts, o.signal)));
    // A health path that is not right: the usual ones, once each, for a suggestion.
    if (!probes[0]!.ok)
      for (const p of USUAL_HEALTH_PATHS.filter((x) => x !== app.health)) {
        const guess = await probeOnce(address, { method: 'GET', path: p }, PROBE_TIMEOUT_MS);
        if (isExpected(guess.status, '2xx')) {
          probes.push({ kind: 'guess', method: 'GET', path: p, expected: '2xx', answers: [guess], ok: true });
          break;
        }
      }
  }
  if (o.signal?.aborted) throw new Error('cancelled');
  const asked = probes.filter((p) => p.kind !== 'guess');
  const ok = startMs !== undefined && asked.length > 0 && asked.every((p) => p.ok);
  // Give an exit a moment to be seen: an app that died at start is why nothing answered.
  if (startMs === undefined) await Promise.race([target.exited, new Promise((r) => setTimeout(r, 500))]);
  const logTail = ok ? [] : (await target.logTail(20).catch(() => '')).split('\n').filter((l) => l.length > 0);
  const found = {
    answered: startMs !== undefined,
    probes,
    waitedSec,
    ...(exitCode !== undefined ? { exitCode } : {}),
  };
  return {
    app: app.name,
    ok,
    image: image.tag,
    built: image.built,
    ...found,
    ...(startMs !== undefined ? { startSec: startMs / 1000 } : {}),
    suggestions: trySuggestions({ ...found, logTail }, app),
    logTail,
  };
}
