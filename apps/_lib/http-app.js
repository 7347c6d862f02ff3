'use strict';
// Shared boilerplate for the target apps. Node built-ins only: the apps are copied as-is into
// images that contain nothing but the `node` binary.
const http = require('node:http');
const https = require('node:https');
const http2 = require('node:http2');

const PORT = Number(process.env.PORT || 3000);
const HOST = process.env.HOST || '0.0.0.0';
// A cold start on demand (for tests of the warm-up): for this many ms after listening, every
// response except /health waits SLOW_START_DELAY_MS first. 0 (the default) changes nothing.
const SLOW_START_MS = Number(process.env.RS_SLOW_START_MS || 0);
const SLOW_START_DELAY_MS = 10;

/**
 * Starts an HTTP server around `handler(req, res)` (sync or async).
 * `onStart` (optional, may be async) runs before listening, so the app only
 * becomes reachable — and healthy — once it is ready.
 */
function serve(handler, { onStart } = {}) {
  let loggedError = false;
  let slowUntil = 0;
  // HTTPS when Rightsize gives the run's certificate (a cell with tls: true): every connection pays its handshake.
  const tls = process.env.RS_TLS_CERT && process.env.RS_TLS_KEY ? { cert: process.env.RS_TLS_CERT, key: process.env.RS_TLS_KEY } : null;
  // HTTP/2 when the cell's protocol says so: h2 over TLS (HTTP/1.1 too, for clients that ask it), h2c in clear.
  const protocol = process.env.RS_PROTOCOL;
  if (protocol === 'h2' && !tls) throw new Error('rightsize: RS_PROTOCOL=h2 needs RS_TLS_CERT and RS_TLS_KEY');
  const create =
    protocol === 'h2' ? (h) => http2.createSecureServer({ ...tls, allowHTTP1: true }, h)
    : protocol === 'h2c' ? (h) => http2.createServer(h)
    : tls ? (h) => https.createServer(tls, h) : (h) => http.createServer(h);
  const server = create((req, res) => {
    if (req.url === '/health' && req.method === 'GET') {
      // The engine counts distinct pids on /health to know that N workers are up.
      res.writeHead(200, { 'content-type': 'text/plain', 'x-rightsize-pid': String(process.pid) });
      res.end('ok');
      return;
    }
    (Date.now() < slowUntil ? new Promise((r) => setTimeout(r, SLOW_START_DELAY_MS)) : Promise.resolve())
      .then(() => handler(req, res))
      .catch((err) => {
        // Log once only: a failing handler under load would otherwise flood the engine's log.
        if (!loggedError) { loggedError = true; console.error('rightsize:handler-error', err); }
        if (res.headersSent) res.destroy();
        else { res.writeHead(500, { 'content-type': 'text/plain' }); res.end('internal error'); }
      });
  });
  // Longer than any test run, so the load generator's keep-alive connections are never
  // dropped mid-run (Node's default is 5 s). headersTimeout must exceed it.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;

  // As PID 1 in a container, Node ignores SIGTERM unless it is handled.
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections?.(); // an HTTP/2 server has none: its sessions go with the process
    setTimeout(() => process.exit(0), 1000).unref(); // never hang on a stuck socket
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);

  Promise.resolve()
    .then(() => onStart?.())
    .then(() => {
      server.listen(PORT, HOST, () => {
        if (SLOW_START_MS > 0) slowUntil = Date.now() + SLOW_START_MS;
        console.log(`rightsize:listening pid=${process.pid} port=${server.address().port}${tls ? ' tls' : ''}${protocol ? ` ${protocol}` : ''}`);
      });
    })
    .catch((err) => {
      console.error('rightsize:start-failed', err);
      process.exit(1);
    });
  return server;
}

// Fake data in the spirit of the dummy-json library, shared by the json* apps.
const FIRST = ['Ada', 'Alan', 'Grace', 'Linus', 'Barbara', 'Ken', 'Margaret', 'Dennis', 'Frances', 'Edsger'];
const LAST = ['Lovelace', 'Turing', 'Hopper', 'Torvalds', 'Liskov', 'Thompson', 'Hamilton', 'Ritchie', 'Allen', 'Dijkstra'];
const WORDS = ['alpha', 'bravo', 'cedar', 'delta', 'ember', 'fjord', 'grove', 'harbor', 'indigo', 'juniper', 'kelp', 'lumen'];
const CITIES = ['Lisbon', 'Oslo', 'Quito', 'Osaka', 'Nairobi', 'Denver', 'Tallinn', 'Perth'];
const pick = (list) => list[Math.floor(Math.random() * list.length)];
const int = (max) => Math.floor(Math.random() * max);

function fakeDoc(users = 20) {
  return {
    generatedAt: new Date().toISOString(),
    users: Array.from({ length: users }, (_, i) => {
      const first = pick(FIRST);
      const last = pick(LAST);
      return {
        id: i + 1,
        name: `${first} ${last}`,
        email: `${first}.${last}${int(100)}@example.com`.toLowerCase(),
        address: { street: `${1 + int(9999)} ${pick(WORDS)} street`, city: pick(CITIES), zip: String(10000 + int(90000)) },
        tags: [pick(WORDS), pick(WORDS), pick(WORDS)],
        age: 18 + int(60),
        score: Math.random(),
        balance: int(1_000_000) / 100,
      };
    }),
  };
}

module.exports = { serve, fakeDoc };
