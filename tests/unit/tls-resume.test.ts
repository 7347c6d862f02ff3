// TLS session resumption (issue 44, load.tlsResume). Real load threads against a real HTTPS server (a child
// process on 127.0.0.1, HTTP/1.1 and h2 on one port) that closes each of its first connections after a few
// responses: off, every re-opened connection pays a full handshake; on, each re-opened one resumes the session
// its client last got, and the load counts exactly the resumed handshakes the server saw. Counts, not times:
// nothing here depends on how fast the host is. Then the option's refusals, labels, keys, CSV and CLI flag.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { runLoad, type LoadPlan } from '../../src-main/load/runner.ts';
import { runCertificate } from '../../src-main/tls/certificate.ts';
import { expandMatrix, validateMatrix, type HostLimits, type MatrixInput } from '../../src-main/engine/matrix.ts';
import { linkText, linkWords } from '../../src-main/common/labels.ts';
import { scopeKey } from '../../src-main/analysis/decide/group.ts';
import { withTlsResume } from '../../src-main/cli/commands/run.ts';
import { cellsCsv, samplesCsv } from '../../src-main/export/csv.ts';
import { cell, reps, run } from '../helpers/run-fixture.ts';
import { htmlReport } from '../../src-main/export/html-report.ts';
import { recommend } from '../../src-main/analysis/index.ts';
import { parseCsv } from '../helpers/report.ts';

/** Responses before the server closes a connection, and how many connections it closes (the rest stay open). */
const PER_CONNECTION = 5;
const CLOSED = 12;

// HTTP/1.1 closes with "Connection: close", h2 with a GOAWAY (session.close()). The server counts every TLS
// connection as its handshake ends, resumed or full, and tells the test over IPC.
const SERVER = `
const http2 = require('http2');
const stats = { full: 0, resumed: 0 };
const served = new WeakMap();
let conns = 0;
const server = http2.createSecureServer({ cert: process.env.RS_TLS_CERT, key: process.env.RS_TLS_KEY, allowHTTP1: true }, (req, res) => {
  const key = req.stream ? req.stream.session : req.socket;
  const c = served.get(key) ?? { no: ++conns, n: 0 };
  served.set(key, c);
  const last = c.no <= ${CLOSED} && ++c.n === ${PER_CONNECTION};
  if (last && !req.stream) res.setHeader('connection', 'close');
  const reply = () => res.end('ok', () => last && req.stream && req.stream.session.close());
  // The connections it keeps open answer at a walk: the handshakes are counted by then, and a busy loop
  // on both sides for the rest of the load only took CPU from the suites beside this one.
  if (c.no > ${CLOSED}) setTimeout(reply, 10);
  else reply();
});
server.on('secureConnection', (s) => (s.isSessionReused() ? stats.resumed++ : stats.full++));
process.on('message', () => process.send(stats));
server.listen(0, '127.0.0.1', () => process.send(server.address().port));
`;

let server: ChildProcess | undefined;
let port = 0;
afterAll(() => server?.kill());

/** A fresh server for each load (its connection numbering would go on otherwise). */
async function restart(): Promise<void> {
  server?.kill();
  const pem = await runCertificate('tls-resume');
  const s = spawn(process.execPath, ['-e', SERVER], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, RS_TLS_CERT: pem.cert, RS_TLS_KEY: pem.key },
  });
  server = s;
  port = await new Promise<number>((resolve) => s.once('message', (m) => resolve(m as number)));
}

/** What the server saw: handshakes full and resumed. */
async function handshakes(): Promise<{ full: number; resumed: number }> {
  server!.send('stats');
  return new Promise((resolve) => server!.once('message', (m) => resolve(m as { full: number; resumed: number })));
}

/**
 * HTTP/2 from Node's client, whose reconnects offer the session (main's h2load executor, where it can send a load,
 * offers none): `LoadPlan.h2Client` on main, spread so that this file compiles before and after the merge.
 */
const NODE_H2 = { h2Client: 'node' as const };

/** Two connections on one thread, for 2 s: the server's closes all happen in the first second. */
async function load(protocol: 'http1' | 'h2', tlsResume: boolean): Promise<{ opened: number; resumed: number }> {
  await restart();
  const plan: LoadPlan = {
    ...NODE_H2,
    host: '127.0.0.1',
    port,
    requests: [{ method: 'GET', path: '/' }],
    load: {
      model: 'closed',
      connections: 2,
      tls: true,
      ...(protocol === 'h2' ? { protocol } : {}),
      ...(tlsResume ? { tlsResume: true } : {}),
    },
    durationSec: 2,
    warmupSec: 0,
    timeoutSec: 5,
    threads: 1,
  };
  const counted = { opened: 0, resumed: 0 };
  const r = await runLoad(plan, {
    onSecond: (s) => {
      counted.opened += s.opened ?? 0;
      counted.resumed += s.resumed ?? 0;
    },
  });
  expect(r.requests).toBeGreaterThan(CLOSED * PER_CONNECTION);
  return counted;
}

describe.each(['http1', 'h2'] as const)('%s over TLS, a server that closes its first connections', (protocol) => {
  it('off (the default): every connection, re-opened or not, pays a full handshake', async () => {
    const counted = await load(protocol, false);
    const seen = await handshakes();
    expect(seen).toEqual({ full: CLOSED + 2, resumed: 0 });
    expect(counted).toEqual({ opened: CLOSED + 2, resumed: 0 });
  });

  it('on: each re-opened connection resumes its session, counted as the server saw it', async () => {
    const counted = await load(protocol, true);
    const seen = await handshakes();
    // The two first connections have no session to offer; each of the closed ones' replacements resumes.
    expect(seen).toEqual({ full: 2, resumed: CLOSED });
    expect(counted).toEqual({ opened: CLOSED + 2, resumed: CLOSED });
  });
});

const host: HostLimits = { cores: 4, memoryMb: 4096, apps: ['hello'] };
const base = { apps: ['hello'], modes: ['cluster'], workers: [1], cpuMillicores: [1000], memoryMb: [256] } as const;
const matrix = (m: Partial<MatrixInput>): MatrixInput => ({ ...base, modes: [...base.modes], ...m }) as MatrixInput;
const problems = (m: MatrixInput): string[] => {
  const v = validateMatrix(m, host);
  return v.ok ? [] : v.problems.map((p) => `${p.path}: ${p.message}`);
};

describe('load.tlsResume', () => {
  it('is refused where no cell speaks TLS, in words that say what to add', () => {
    const load = { model: 'closed' as const, connections: [20], tlsResume: true };
    for (const m of [matrix({ load }), matrix({ load, tls: [false] }), matrix({ load, protocol: ['h2c'] })])
      expect(problems(m)).toEqual([
        'load.tlsResume: resumes TLS sessions, and no cell speaks TLS: add true to "tls" or "h2" to "protocol", ' +
          'or leave tlsResume out',
      ]);
    expect(problems(matrix({ load: { ...load, tlsResume: 'yes' as unknown as boolean } }))[0]).toMatch(
      /^load.tlsResume: .*true: a re-opened TLS connection resumes its last session/,
    );
    expect(problems(matrix({ load, tls: [true] }))).toEqual([]);
    expect(problems(matrix({ load: { ...load, tlsResume: false } }))).toEqual([]);
  });

  it('goes to the TLS cells only (plain and h2c cells have no session), labelled and keyed apart', () => {
    const load = { model: 'closed' as const, connections: [20], tlsResume: true };
    const v = validateMatrix(matrix({ load, tls: [false, true], protocol: ['http1', 'h2', 'h2c'] }), host);
    if (!v.ok) throw new Error(JSON.stringify(v.problems));
    const loads = expandMatrix(v.matrix).map((c) => c.load);
    expect(loads.map((l) => [l.protocol ?? 'http1', Boolean(l.tls), Boolean(l.tlsResume)])).toEqual([
      ['http1', false, false],
      ['http1', true, true],
      ['h2', true, true],
      ['h2c', false, false],
    ]);
    const tls = { model: 'closed', connections: 20, tls: true } as const;
    expect(linkText({ ...tls, tlsResume: true })).toBe(' · TLS · resumed');
    expect(linkWords({ ...tls, tlsResume: true })).toBe(' over TLS, sessions resumed');
    expect(linkWords({ ...tls, protocol: 'h2', tlsResume: true })).toBe(' over HTTP/2 (h2, TLS, sessions resumed)');
    const key = (l: object): string => scopeKey({ ...cell({}).config, load: { ...tls, ...l } });
    expect(key({ tlsResume: true })).not.toBe(key({}));
    expect(JSON.parse(key({}))).not.toContain('resume'); // without the option, the key stored before it
  });

  it('HTTPS with sessions resumed is still set against plain HTTP by the answer', () => {
    const plain = { model: 'closed' as const, connections: 20 };
    const r = run([
      ...reps({ app: 'static', load: plain }, [56_000, 57_000, 55_500]),
      ...reps({ app: 'static', load: { ...plain, tls: true, tlsResume: true } }, [38_000, 37_500, 38_400]),
    ]);
    const notes = recommend(r).comparisons!.filter((n) => n.kind === 'tls');
    expect(notes.map((n) => n.text)).toEqual([
      expect.stringMatching(/^HTTPS, for .*: plain HTTP serves 48 % more than HTTPS with sessions resumed \(/),
    ]);
  });

  it('--tls-resume sets it on the matrix (the default load when it names none); resumed handshakes have a CSV column', () => {
    expect(withTlsResume(base, undefined)).toBe(base);
    expect(withTlsResume(base, true)).toEqual({ ...base, load: { model: 'closed', connections: [20], tlsResume: true } });
    const r = run([cell({ load: { model: 'closed', connections: 20, tls: true, tlsResume: true } })]);
    const second = { t: 0, rps: 1, bytes: 1, errors: 0, timeouts: 0, non2xx: 0, p50Us: 1, p90Us: 1, p99Us: 1, maxUs: 1 };
    const samples = new Map([[r.cells[0]!.id, [{ ...second, cpuPct: null, memBytes: null, throttledPeriods: null, opened: 9, resumed: 7 }]]]);
    const rows = parseCsv(samplesCsv(r, samples));
    // The report's method says how TLS cells opened their connections, only when the run has some.
    expect(htmlReport(r, samples, recommend(r))).toMatch(/<b>TLS\.<\/b>[^<]*A connection the server closed/);
    expect(htmlReport(run([cell({})]), new Map(), recommend(run([cell({})])))).not.toContain('<b>TLS.</b>');
    expect(parseCsv(cellsCsv(r))[0]).toMatchObject({ tls: '1', tls_resume: '1' });
    expect(rows[0]).toMatchObject({ connections_opened: '9', tls_resumed: '7' });
  });
});
