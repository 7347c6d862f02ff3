// HTTP/2 (issue 44): the `protocol` dimension and HTTP/2's streams per connection, refused in words where they
// cannot be; what a cell's link is called everywhere; the mix's requests as HTTP/2 requests; and the answer's line
// on what HTTP/2 changes for the same encryption. The load over a real HTTP/2 server is in http2-load.test.ts.
import { describe, expect, it } from 'vitest';
import { expandMatrix, type HostLimits } from '../../src-main/engine/matrix.ts';
import { configurationKey, loadLabel, scopeKey } from '../../src-main/analysis/decide/group.ts';
import { cellLabel } from '../../src-main/common/labels.ts';
import { checkTls } from '../../src-main/engine/run/limits.ts';
import { h2Request } from '../../src-main/load/h2-client.ts';
import { linkEnv, linkSpec } from '../../src-main/tls/certificate.ts';
import { recommend } from '../../src-main/analysis/recommend.ts';
import { cellsCsv } from '../../src-main/export/csv.ts';
import { matrixCheck } from '../helpers/matrix-check.ts';
import { reps, run } from '../helpers/run-fixture.ts';

const host: HostLimits = { cores: 4, memoryMb: 4096, apps: ['static'] };
const base = { apps: ['static'], modes: ['cluster'], workers: [1], cpuMillicores: [1000], memoryMb: [256] };

const { problems, valid } = matrixCheck(host);

describe('protocol, a matrix dimension', () => {
  it.each([
    [{ protocol: [] }, 'protocol: needs at least one value (leave it out for HTTP/1.1)'],
    [{ protocol: ['h3'] }, 'protocol: "h3" is not an HTTP version Rightsize speaks: "http1", "h2" or "h2c"'],
    [{ protocol: ['h2', 'h2'] }, 'protocol: each value only once'],
    [{ protocol: ['h2'], tls: [false, true] }, 'tls: applies to HTTP/1.1 cells only ("h2" is always over TLS, "h2c" never): add "http1" to protocol or leave it out'],
    [{ load: { model: 'closed', connections: [20], streams: 10 } }, 'load.streams: streams are HTTP/2\'s: add "h2" or "h2c" to protocol, or leave streams out'],
    [{ protocol: ['h2'], load: { model: 'closed', connections: [20], streams: 0 } }, 'load.streams: 0 is not a number of streams: a whole number from 1 to 100'],
    [{ protocol: ['h2'], load: { model: 'closed', connections: [20], streams: 101 } }, 'load.streams: 101 is not a number of streams: a whole number from 1 to 100'],
  ])('%j is refused in words', (over, words) => {
    expect(problems({ ...base, ...over })).toContain(words);
  });

  it('each HTTP version its own contest: h2 is over TLS, h2c in clear, TLS crosses HTTP/1.1 only; streams go with HTTP/2', () => {
    const cells = expandMatrix(
      valid({ ...base, protocol: ['http1', 'h2', 'h2c'], tls: [false, true], load: { model: 'closed', connections: [20], streams: 10 } }),
    );
    expect(cells.map((c) => c.load)).toEqual([
      { model: 'closed', connections: 20 },
      { model: 'closed', connections: 20, tls: true },
      { model: 'closed', connections: 20, tls: true, protocol: 'h2', streams: 10 },
      { model: 'closed', connections: 20, protocol: 'h2c', streams: 10 },
    ]);
    expect(new Set(cells.map(scopeKey)).size).toBe(4);
    expect(new Set(cells.map(configurationKey)).size).toBe(4);
    expect(loadLabel(cells[2]!.load)).toBe('20 connections over HTTP/2 (h2, TLS) with 10 streams each');
    expect(loadLabel(cells[3]!.load)).toBe('20 connections over HTTP/2 (h2c, in clear) with 10 streams each');
    expect(cellLabel(cells[2]!)).toBe('static cluster×1 1000m/256MB c20 · h2 · 10 streams');
    expect(cellLabel(cells[3]!)).toBe('static cluster×1 1000m/256MB c20 · h2c · 10 streams');
    // One stream (the default) is not written into the cell, so its key is the same as it would be without streams.
    const one = expandMatrix(valid({ ...base, protocol: ['h2'] }))[0]!;
    expect(one.load).toEqual({ model: 'closed', connections: 20, tls: true, protocol: 'h2' });
    expect(cellLabel(one)).toBe('static cluster×1 1000m/256MB c20 · h2');
    // HTTP/1.1 named alone changes nothing stored before.
    expect(expandMatrix(valid({ ...base, protocol: ['http1'] }))[0]!.load).toEqual({ model: 'closed', connections: 20 });
  });

  it("what a built-in app is told and how its readiness is asked; a target whose readiness check can't is refused", () => {
    const pem = { cert: 'C', key: 'K' };
    expect(linkEnv({ tls: true, protocol: 'h2' }, pem)).toEqual({ RS_TLS_CERT: 'C', RS_TLS_KEY: 'K', RS_PROTOCOL: 'h2' });
    expect(linkEnv({ protocol: 'h2c' }, undefined)).toEqual({ RS_PROTOCOL: 'h2c' });
    expect(linkEnv({}, undefined)).toEqual({});
    expect(() => linkEnv({ tls: true }, undefined)).toThrow(/needs the run's certificate/);
    expect(linkSpec({ protocol: 'h2c' })).toEqual({ protocol: 'h2c' });
    expect(() => checkTls({ name: 'k8s' }, false, true)).toThrow(/The target "k8s" cannot run HTTP\/2 cells yet \(protocol "h2" or "h2c"\)/);
    expect(() => checkTls({ name: 'local', servesTls: true }, true, true)).not.toThrow();
  });

  it('the CSV says which HTTP version each cell spoke, and its streams', () => {
    const r = run([
      ...reps({ app: 'static', load: { model: 'closed', connections: 20, tls: true, protocol: 'h2', streams: 10 } }, [100]),
      ...reps({ app: 'static', load: { model: 'closed', connections: 20 } }, [100]),
    ]);
    const [head, a, b] = cellsCsv(r).split('\n');
    const cols = head!.split(',');
    const at = (line: string, col: string): string => line.split(',')[cols.indexOf(col)]!;
    expect([at(a!, 'protocol'), at(a!, 'streams'), at(a!, 'tls')]).toEqual(['h2', '10', '1']);
    expect([at(b!, 'protocol'), at(b!, 'streams'), at(b!, 'tls')]).toEqual(['http1', '', '']);
  });
});

describe("the mix's requests as HTTP/2 requests", () => {
  it('the request line becomes pseudo-headers, Host becomes :authority, hop-by-hop fields go, the body stays', () => {
    const r = h2Request('POST /orders?x=1 HTTP/1.1\r\nHost: 10.0.0.2:8080\r\nConnection: keep-alive\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}');
    expect(r.headers).toEqual({
      ':method': 'POST',
      ':path': '/orders?x=1',
      ':authority': '10.0.0.2:8080',
      'content-type': 'application/json',
      'content-length': '7',
    });
    expect(r.body?.toString()).toBe('{"a":1}');
    expect(h2Request(Buffer.from('GET / HTTP/1.1\r\nHost: h\r\n\r\n'))).toEqual({ headers: { ':method': 'GET', ':path': '/', ':authority': 'h' } });
  });
});

describe('what HTTP/2 changes, by the answer’s own contest', () => {
  const h1 = { model: 'closed' as const, connections: 20, tls: true as const };
  const h2 = { ...h1, protocol: 'h2' as const };

  it('a configuration run over HTTP/1.1 with TLS and over h2 gets one line, with its test; HTTPS gets none', () => {
    const r = run([
      ...reps({ app: 'static', workers: 1, load: h1 }, [30_000, 30_500, 29_800]),
      ...reps({ app: 'static', workers: 1, load: h2 }, [24_000, 24_500, 23_900]),
    ]);
    const notes = recommend(r).comparisons!;
    expect(notes.filter((n) => n.kind === 'tls')).toEqual([]); // both sides speak TLS
    const lines = notes.filter((n) => n.kind === 'http2');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.text).toMatch(/^HTTP\/2, for 1 cluster worker on 1 CPU \/ 256 MB \(static\): HTTP\/1\.1 over TLS serves 25 % more than HTTP\/2 \(h2\) \(30,100 ± [\d,]+ against 24,133 ± [\d,]+ req\/s; one-sided Welch, Holm 5 %: p [<\d.]/);
  });
});
