// npm run bench -- tls-resume [--runs N]
//
// What TLS session resumption (load.tlsResume, issue 44) changes on the server's side when the server closes its
// connections often: a single-process Node.js HTTPS server (a child process on 127.0.0.1, the run's kind of
// certificate, RSA 2048) answers "ok" and closes each connection after PER_CONNECTION requests ("Connection:
// close"); Rightsize's load (1 thread, CONNECTIONS connections, closed loop) runs against it with resumption off
// and on, alternately, N rounds of SECONDS each. Per mode, medians over the rounds: req/s, handshakes/s (full and
// resumed, as the load counted them), and the server's CPU time per request (its own process.cpuUsage()).
// No Docker; both sides share the machine's cores, so a busy host moves the numbers (BENCHMARKS.md says when).
import { type ChildProcess, spawn } from 'node:child_process';
import { runLoad } from '../src-main/load/runner.ts';
import { runCertificate } from '../src-main/tls/certificate.ts';
import { isMain, median } from './stats.ts';

const PER_CONNECTION = 10;
const CONNECTIONS = 10;
const SECONDS = 5;

const SERVER = `
const https = require('https');
const server = https.createServer({ cert: process.env.RS_TLS_CERT, key: process.env.RS_TLS_KEY }, (req, res) => {
  const s = req.socket;
  s.n = (s.n ?? 0) + 1;
  requests++;
  if (s.n === ${PER_CONNECTION}) res.setHeader('connection', 'close');
  res.end('ok');
});
let full = 0, resumed = 0, requests = 0;
server.on('secureConnection', (s) => (s.isSessionReused() ? resumed++ : full++));
process.on('message', () => { const u = process.cpuUsage(); process.send({ cpuMs: (u.user + u.system) / 1000, requests, full, resumed }); });
server.listen(0, '127.0.0.1', () => process.send(server.address().port));
`;

interface Reading {
  cpuMs: number;
  requests: number;
  full: number;
  resumed: number;
}

const ask = (server: ChildProcess): Promise<Reading> =>
  new Promise((resolve) => {
    server.once('message', (m) => resolve(m as Reading));
    server.send('read');
  });

interface Round {
  rps: number;
  fullPerSec: number;
  resumedPerSec: number;
  /** The server's CPU time over the requests it answered, warm-up included (both are the server's own counts). */
  serverUsPerRequest: number;
}

async function round(server: ChildProcess, port: number, resume: boolean): Promise<Round> {
  const before = await ask(server);
  let opened = 0;
  let resumed = 0;
  const r = await runLoad(
    {
      host: '127.0.0.1',
      port,
      requests: [{ method: 'GET', path: '/' }],
      load: { model: 'closed', connections: CONNECTIONS, tls: true, ...(resume ? { tlsResume: true } : {}) },
      durationSec: SECONDS,
      warmupSec: 1,
      timeoutSec: 5,
      threads: 1,
    },
    {
      onSecond: (s, warm) => {
        if (warm) return;
        opened += s.opened ?? 0;
        resumed += s.resumed ?? 0;
      },
    },
  );
  const after = await ask(server);
  return {
    rps: r.requests / r.measuredSec,
    fullPerSec: (opened - resumed) / r.measuredSec,
    resumedPerSec: resumed / r.measuredSec,
    serverUsPerRequest: ((after.cpuMs - before.cpuMs) * 1000) / (after.requests - before.requests),
  };
}

async function main(): Promise<void> {
  const i = process.argv.indexOf('--runs');
  const runs = i >= 0 ? Number(process.argv[i + 1]) : 3;
  const pem = await runCertificate('bench-tls-resume');
  const server = spawn(process.execPath, ['-e', SERVER], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, RS_TLS_CERT: pem.cert, RS_TLS_KEY: pem.key },
  });
  const port = await new Promise<number>((resolve) => server.once('message', (m) => resolve(m as number)));
  const rounds: Record<'off' | 'on', Round[]> = { off: [], on: [] };
  try {
    for (let k = 0; k < runs; k++)
      for (const mode of k % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const))
        rounds[mode].push(await round(server, port, mode === 'on'));
  } finally {
    server.kill();
  }
  const m = (mode: 'off' | 'on', f: (r: Round) => number): string => median(rounds[mode].map(f)).toFixed(0);
  console.log(
    `\nTLS resumption: ${CONNECTIONS} connections, 1 load thread, the server closes each after ${PER_CONNECTION} ` +
      `requests; ${SECONDS} s × ${runs} rounds per mode, medians\n`,
  );
  console.log('| load.tlsResume | req/s | full handshakes/s | resumed handshakes/s | server CPU µs per request |');
  console.log('|---|---:|---:|---:|---:|');
  for (const mode of ['off', 'on'] as const)
    console.log(
      `| ${mode} | ${m(mode, (r) => r.rps)} | ${m(mode, (r) => r.fullPerSec)} | ${m(mode, (r) => r.resumedPerSec)} | ` +
        `${median(rounds[mode].map((r) => r.serverUsPerRequest)).toFixed(1)} |`,
    );
}

if (isMain(import.meta.url)) await main();
