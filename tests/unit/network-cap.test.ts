// The network as a resource (issue 44): a bandwidth cap per cell as a matrix dimension, refused in words where it
// cannot be, the network-bound flag decided once from the bytes the load side counted against the cap, and the
// answer reading it as a lower bound that is not a CPU question.
import { describe, expect, it } from 'vitest';
import { expandMatrix, type HostLimits } from '../../src-main/engine/matrix.ts';
import { cellFlagsAndBottleneck, networkBoundReason } from '../../src-main/engine/flags.ts';
import { cellBottleneck, isLowerBound, whoSetThePace } from '../../src-main/common/bottleneck.ts';
import { configurationKey, loadLabel, scopeKey } from '../../src-main/analysis/decide/group.ts';
import { cellLabel } from '../../src-main/common/labels.ts';
import { checkBandwidthCaps } from '../../src-main/engine/run/limits.ts';
import { tbfArgs } from '../../src-main/docker/net-shaper.ts';
import { recommend } from '../../src-main/analysis/recommend.ts';
import { SCHEMA_VERSION } from '../../src-main/store/migrations.ts';
import { migratedFrom, storedBottlenecks } from '../helpers/old-store.ts';
import { cellsCsv } from '../../src-main/export/csv.ts';
import type { LoadResult } from '../../src-main/model/types.ts';
import { matrixCheck } from '../helpers/matrix-check.ts';
import { reps, run } from '../helpers/run-fixture.ts';

const host: HostLimits = { cores: 4, memoryMb: 4096, apps: ['static'] };
const base = { apps: ['static'], modes: ['cluster'], workers: [1, 2], cpuMillicores: [1000], memoryMb: [256] };

const { problems, valid } = matrixCheck(host);

describe('networkMbps, a matrix dimension', () => {
  it.each([
    [[0], 'networkMbps: 0 is not a bandwidth cap: a whole number of Mbit/s from 1 to 100000'],
    [[2.5], 'networkMbps: 2.5 is not a bandwidth cap: a whole number of Mbit/s from 1 to 100000'],
    [[200_000], 'networkMbps: 200000 is not a bandwidth cap: a whole number of Mbit/s from 1 to 100000'],
    [[], 'networkMbps: needs at least one value (leave it out for no cap)'],
    [[100, 100], 'networkMbps: each cap only once'],
  ])('%j is refused in words', (caps, words) => {
    expect(problems({ ...base, networkMbps: caps })).toContain(words);
  });

  it('is refused with its hint when not a list', () => {
    expect(problems({ ...base, networkMbps: 2000 }).join('\n')).toMatch(/networkMbps: should be a list of bandwidth caps in Mbit\/s/);
  });

  it('expands every configuration once per cap, each cap its own contest; without it, keys stay as stored before', () => {
    const cells = expandMatrix(valid({ ...base, networkMbps: [100, 2000] }));
    expect(cells.map((c) => [c.workers, c.load.networkMbps])).toEqual([[1, 100], [1, 2000], [2, 100], [2, 2000]]);
    expect(new Set(cells.map(configurationKey)).size).toBe(4);
    expect(new Set(cells.map(scopeKey)).size).toBe(2);
    const plain = expandMatrix(valid(base))[0]!;
    expect(plain.load).toEqual({ model: 'closed', connections: 20 });
    expect(configurationKey(plain)).toBe(JSON.stringify(['static', null, 'cluster', 1, 1000, 256, 'closed', 20]));
    expect(loadLabel(cells[0]!.load)).toBe('20 connections through 100 Mbit/s');
    expect(cellLabel(cells[3]!)).toBe('static cluster×2 1000m/256MB c20 · 2000 Mbit/s');
  });
});

describe('where a cap cannot be set, the run is refused before anything starts', () => {
  it('a Swarm or Kubernetes target (no way to set one) and an engine without tc, in words; none asked: no check', () => {
    expect(() => checkBandwidthCaps({ name: 'k8s' }, [2000])).toThrow(
      'The target "k8s" cannot cap a cell\'s bandwidth (networkMbps 2000): a Swarm service or a Kubernetes pod has no per-container bandwidth cap Rightsize can set (a Docker engine has). Nothing was started.',
    );
    const noTc = { name: 'local', bandwidthCapProblem: () => 'a bandwidth cap needs Linux traffic control on this machine: install iproute2 (`tc`)' };
    expect(() => checkBandwidthCaps(noTc, [100, 2000])).toThrow(/networkMbps 100, 2000\): a bandwidth cap needs Linux traffic control/);
    expect(() => checkBandwidthCaps({ name: 'k8s' }, [])).not.toThrow();
    expect(() => checkBandwidthCaps({ name: 'local', bandwidthCapProblem: () => undefined }, [2000])).not.toThrow();
  });

  it("tc's token bucket: 10 ms of traffic as its burst, never under a 64 KiB segment", () => {
    expect(tbfArgs(2000)).toEqual(['qdisc', 'replace', 'dev', 'eth0', 'root', 'tbf', 'rate', '2000mbit', 'burst', '2500000', 'latency', '50ms']);
    expect(tbfArgs(10)[9]).toBe(String(64 * 1024));
  });
});

/** A load result with these bytes per second (and one or more replicas). */
const load = (bytesPerSec: number, replicas = 1): LoadResult =>
  ({
    model: 'closed', connections: 20, measuredSec: 10, requests: 2400, bytes: bytesPerSec * 10, rpsMean: 240, rpsStddev: 2,
    bytesPerSec, statusCounts: { 200: 2400 }, errors: 0, timeouts: 0, non2xx: 0, clientElu: 0.3, clientBound: false,
    latencyFrom: 'send', latencyUs: { p50: 1, p75: 1, p90: 1, p97_5: 1, p99: 1, p99_9: 1, max: 1, mean: 1, stddev: 0 },
    ...(replicas > 1 ? { replicaRequests: Array(replicas).fill(2400 / replicas) } : {}),
  }) as LoadResult;

describe('network-bound: decided once, from the bytes against the cap', () => {
  const mbit = (x: number): number => (x * 1e6) / 8;

  it('at 95 % of the cap: network-bound, a lower bound, in words with the numbers', () => {
    const r = cellFlagsAndBottleneck(load(mbit(1900)), undefined, undefined, 256, [], 2000);
    expect(r.flags).toEqual([{ kind: 'network-bound', reason: 'its responses carried 1,900 Mbit/s, 95 % of its 2,000 Mbit/s bandwidth cap: the network set the pace' }]);
    expect(r.bottleneck).toBe('network');
    expect(isLowerBound(r)).toBe(true);
    expect(whoSetThePace([r])).toBe('the bandwidth cap set the pace');
  });

  it('below the threshold, or without a cap: not network-bound', () => {
    expect(networkBoundReason(load(mbit(1600)), 2000)).toBeUndefined();
    expect(cellFlagsAndBottleneck(load(mbit(1900)), undefined, undefined, 256).bottleneck).toBe('server');
  });

  it('the median second: two seconds the host took from the sender do not hide a link at its cap; a slow server is still not', () => {
    // The shape of a CI cell at 200 Mbit/s on a busy host: a mean of 83.9 % (below the threshold), three seconds at the cap.
    const seconds = [0.96, 0.63, 0.96, 0.64, 0.96].map((x) => mbit(200 * x));
    const mean = seconds.reduce((a, b) => a + b, 0) / seconds.length;
    expect((mean * 8) / 1e6 / 200).toBeLessThan(0.85);
    expect(networkBoundReason({ ...load(mean), perSecondBytes: seconds }, 200)).toBe(
      'its responses carried 192 Mbit/s in the median second, 96 % of its 200 Mbit/s bandwidth cap: the network set the pace',
    );
    // Without its seconds (a result stored before they were): the mean, as before.
    expect(networkBoundReason(load(mean), 200)).toBeUndefined();
    // A server that sends 80 % of the cap, second after second: its own pace, not the link's.
    const slow = [0.8, 0.82, 0.78, 0.8, 0.81].map((x) => mbit(200 * x));
    expect(networkBoundReason({ ...load(mbit(160)), perSecondBytes: slow }, 200)).toBeUndefined();
  });

  it("replicas: each has its own cap, so the link is their sum", () => {
    expect(networkBoundReason(load(mbit(1900), 2), 1000)).toMatch(/95 % of its 2 replicas' 2,000 Mbit\/s \(1,000 each\)/);
    expect(networkBoundReason(load(mbit(1100), 2), 1000)).toBeUndefined();
  });

  it('a link at its cap wins over every inferred pace: no more bytes could leave', () => {
    const net = { kind: 'network-bound' as const };
    expect(cellBottleneck({ flags: [{ kind: 'client-bound' }, net], load: {} })).toBe('network');
    expect(cellBottleneck({ flags: [{ kind: 'host-busy' }, { kind: 'dependency-bound' }, net], load: {} })).toBe('network');
  });

  it('the answer keeps every worker count as a lower bound and says it is not a CPU question', () => {
    const l = { model: 'closed' as const, connections: 20, networkMbps: 2000 };
    const r = run([...reps({ app: 'static', workers: 1, load: l }, [238, 240, 236]), ...reps({ app: 'static', workers: 2, load: l }, [239, 241, 237])]);
    const bound = { ...r, cells: r.cells.map((c) => ({ ...c, bottleneck: 'network' as const })) };
    const rec = recommend(bound);
    expect(rec.scopes[0]!.ceiling).toBe('network');
    expect(rec.scopes[0]!.lowerBounds).toHaveLength(2);
    expect(rec.words.join(' ')).toMatch(/filled its bandwidth cap: the network, not the server, set the ceiling, so this is not a CPU question/);
    expect(cellsCsv(bound).split('\n')[0]).toMatch(/,network_mbps,.*,network_bound_reason,/);
    expect(cellsCsv(bound).split('\n')[1]).toMatch(/,20,,2000,/);
  });
});

describe('store migration 14: the pace column takes network, keeps every stored value', () => {
  it("keeps 'server', 'client', 'host', 'dependency' and NULL, takes 'network', refuses anything else", () => {
    const { raw, done } = migratedFrom(14, ['server', 'client', 'host', 'dependency', null]);
    try {
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(storedBottlenecks(raw)).toEqual(['server', 'client', 'host', 'dependency', null]);
      raw.prepare("UPDATE cells SET bottleneck = 'network' WHERE idx = 4").run();
      expect(() => raw.prepare("UPDATE cells SET bottleneck = 'disk' WHERE idx = 4").run()).toThrow(/CHECK constraint/);
    } finally {
      done();
    }
  });
});

describe('tls, a matrix dimension (issue 44)', () => {
  it.each([
    [[], 'tls: needs at least one value (leave it out for plain HTTP)'],
    [[true, true], 'tls: each value only once'],
  ])('%j is refused in words', (values, words) => {
    expect(problems({ ...base, tls: values })).toContain(words);
  });

  it('plain and HTTPS are each their own contest; without it, keys stay as stored before', () => {
    const cells = expandMatrix(valid({ ...base, workers: [1], tls: [false, true], networkMbps: [2000] }));
    expect(cells.map((c) => c.load)).toEqual([
      { model: 'closed', connections: 20, networkMbps: 2000 },
      { model: 'closed', connections: 20, networkMbps: 2000, tls: true },
    ]);
    expect(new Set(cells.map(scopeKey)).size).toBe(2);
    expect(loadLabel(cells[1]!.load)).toBe('20 connections over TLS through 2,000 Mbit/s');
    expect(cellLabel(cells[1]!)).toBe('static cluster×1 1000m/256MB c20 · TLS · 2000 Mbit/s');
    expect(expandMatrix(valid({ ...base, tls: [false] })).every((c) => !('tls' in c.load))).toBe(true);
  });

  it('a target whose readiness check does not speak TLS refuses HTTPS cells before anything starts', async () => {
    const { checkTls } = await import('../../src-main/engine/run/limits.ts');
    expect(() => checkTls({ name: 'k8s' }, true)).toThrow(/The target "k8s" cannot run HTTPS cells yet \(tls: true\)/);
    expect(() => checkTls({ name: 'k8s' }, false)).not.toThrow();
    expect(() => checkTls({ name: 'local', servesTls: true }, true)).not.toThrow();
  });

  it("a run's certificate: made once per run, self-signed RSA, and what a built-in app reads", async () => {
    const { runCertificate, tlsEnv } = await import('../../src-main/tls/certificate.ts');
    const { X509Certificate, createPrivateKey } = await import('node:crypto');
    const a = await runCertificate('t1');
    expect(await runCertificate('t1')).toBe(a);
    expect(await runCertificate('t2')).not.toBe(a);
    const x = new X509Certificate(a.cert);
    expect(x.subject).toBe('CN=rightsize');
    expect(x.publicKey.asymmetricKeyType).toBe('rsa');
    expect(x.checkPrivateKey(createPrivateKey(a.key))).toBe(true);
    expect(Object.keys(tlsEnv(a))).toEqual(['RS_TLS_CERT', 'RS_TLS_KEY']);
  });
});

describe('what HTTPS costs, by the answer’s own contest (issue 44)', () => {
  const plain = { model: 'closed' as const, connections: 20 };
  const tls = { ...plain, tls: true as const };

  it('each configuration run both ways gets one line: how much more plain serves, with its test', () => {
    const r = run([
      ...reps({ app: 'static', workers: 1, load: plain }, [56_000, 57_000, 55_500]),
      ...reps({ app: 'static', workers: 1, load: tls }, [38_000, 37_500, 38_400]),
      ...reps({ app: 'static', workers: 2, load: plain }, [55_000, 54_000, 55_500]),
    ]);
    const notes = recommend(r).comparisons!.filter((n) => n.kind === 'tls');
    expect(notes).toHaveLength(1); // 2 workers ran plain only
    expect(notes[0]!.relation).toBe('worse');
    expect(notes[0]!.text).toMatch(/^HTTPS, for 1 cluster worker on 1 CPU \/ 256 MB \(static\): plain HTTP serves 48 % more than HTTPS \(56,167 ± [\d,]+ against 37,967 ± [\d,]+ req\/s; one-sided Welch, Holm 5 %: p [<\d.]/);
  });

  it('not where the network held a side: the link, not TLS, set both goodputs', () => {
    const net = { kind: 'network-bound' as const, reason: 'n' };
    const r = run([
      ...reps({ app: 'static', workers: 1, load: { ...plain, networkMbps: 2000 }, flags: [net] }, [228, 228, 229]),
      ...reps({ app: 'static', workers: 1, load: { ...tls, networkMbps: 2000 }, flags: [net] }, [227, 228, 227]),
    ]);
    expect(recommend(r).comparisons!.filter((n) => n.kind === 'tls')).toEqual([]);
  });
});
