/**
 * The program the reaper container runs (`node -e`), as Testcontainers' Ryuk does for its tests:
 * it listens on a TCP port, its owner connects and keeps the connection open, and when the last
 * connection closes (the owner exited, crashed or was SIGKILLed: the kernel closes its sockets) it
 * removes every container (then network) labelled with the owner's session, checks again a few times for
 * containers whose creation was still in flight, and exits; the container is auto-removed.
 * Plain Node built-ins only: it talks to the Docker API through the mounted socket.
 *
 * An owner that never connects (it died right after creating the reaper) is reaped after
 * REAPER_FIRST_CONNECT_MS. "bye" from the owner means it is done on purpose: still one pass.
 */
export const REAPER_PORT = 7780;
export const REAPER_FIRST_CONNECT_MS = 5_000;

export const REAPER_SCRIPT = String.raw`
'use strict';
const http = require('http');
const net = require('net');
const os = require('os');
const SESSION = process.env.RIGHTSIZE_REAP_SESSION;
const LABEL = process.env.RIGHTSIZE_REAP_LABEL;
const SOCKET = process.env.RIGHTSIZE_REAP_SOCKET || '/var/run/docker.sock';
const self = os.hostname(); // a container's hostname is the start of its id
const api = (method, path) => new Promise((resolve) => {
  const req = http.request({ socketPath: SOCKET, method, path, timeout: 10000 }, (res) => {
    let body = '';
    res.on('data', (c) => (body += c));
    res.on('end', () => resolve({ code: res.statusCode, body }));
  });
  req.on('error', (e) => resolve({ code: 0, body: String(e) }));
  req.on('timeout', () => req.destroy(new Error('timeout')));
  req.end();
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function reapOnce() {
  const filters = encodeURIComponent(JSON.stringify({ label: [LABEL + '=' + SESSION] }));
  const r = await api('GET', '/containers/json?all=1&filters=' + filters);
  let list = [];
  try { list = JSON.parse(r.body); } catch { return 1; }
  if (!Array.isArray(list)) return 1;
  const others = list.filter((c) => !c.Id.startsWith(self));
  await Promise.all(others.map((c) => api('DELETE', '/containers/' + c.Id + '?force=1&v=1')));
  if (others.length) console.log('removed ' + others.length + ' container(s) of ' + SESSION);
  // A cell's network (its dependencies' world), once its containers are gone.
  const n = await api('GET', '/networks?filters=' + filters);
  let nets = [];
  try { nets = JSON.parse(n.body); } catch { nets = []; }
  if (!Array.isArray(nets)) nets = [];
  await Promise.all(nets.map((x) => api('DELETE', '/networks/' + x.Id)));
  if (nets.length) console.log('removed ' + nets.length + ' network(s) of ' + SESSION);
  return others.length + nets.length;
}
let reaping = false;
async function reap(why, passes) {
  if (reaping) return;
  reaping = true;
  console.log('reaping: ' + why);
  // Until two passes in a row find nothing: a create the owner sent just before it died may land late.
  let quiet = 0;
  for (let i = 0; i < 20 && quiet < passes; i++) {
    quiet = (await reapOnce()) ? 0 : quiet + 1;
    if (quiet < passes) await sleep(400);
  }
  process.exit(0);
}
let open = 0;
let bye = false;
const first = setTimeout(() => reap('no owner connected', 2), Number(process.env.RIGHTSIZE_REAP_FIRST_MS || 5000));
const server = net.createServer((sock) => {
  open++;
  clearTimeout(first);
  sock.setKeepAlive(true, 2000);
  sock.on('data', (d) => { if (String(d).includes('bye')) bye = true; });
  sock.on('error', () => {});
  sock.on('close', () => { if (--open === 0) reap(bye ? 'owner done' : 'owner gone', bye ? 1 : 2); });
  sock.write('ready\n');
});
server.listen(Number(process.env.RIGHTSIZE_REAP_PORT || 7780), '0.0.0.0');
process.on('SIGTERM', () => process.exit(0));
`;

/**
 * Creates and starts the reaper container from a detached helper process: if the owner is killed
 * between "create" and "start", the helper still starts it, and the reaper (never connected to)
 * reaps after REAPER_FIRST_CONNECT_MS. Done in the owner itself, that gap would leave a created
 * container behind. Prints one JSON line: {id} or {error}.
 */
export const REAPER_LAUNCHER = String.raw`
'use strict';
const http = require('http');
process.stdout.on('error', () => {}); // the owner may be gone: the reaper still has to start
const api = (method, path, data) => new Promise((resolve, reject) => {
  const headers = data ? { 'content-type': 'application/json' } : {};
  const req = http.request({ socketPath: process.env.RIGHTSIZE_DOCKER_SOCKET, method, path, headers }, (res) => {
    let body = '';
    res.on('data', (c) => (body += c));
    res.on('end', () => resolve({ code: res.statusCode, body }));
  });
  req.on('error', reject);
  if (data) req.write(data);
  req.end();
});
(async () => {
  const name = process.env.RIGHTSIZE_REAPER_NAME;
  const query = name ? '?name=' + encodeURIComponent(name) : '';
  const c = await api('POST', '/containers/create' + query, process.env.RIGHTSIZE_REAPER_SPEC);
  if (c.code !== 201) throw new Error('create: HTTP ' + c.code + ' ' + c.body.trim());
  const id = JSON.parse(c.body).Id;
  const s = await api('POST', '/containers/' + id + '/start');
  if (s.code !== 204 && s.code !== 304) {
    await api('DELETE', '/containers/' + id + '?force=1');
    throw new Error('start: HTTP ' + s.code + ' ' + s.body.trim());
  }
  process.stdout.write(JSON.stringify({ id }) + '\n');
})().catch((e) => {
  process.stdout.write(JSON.stringify({ error: String((e && e.message) || e) }) + '\n');
  process.exitCode = 1;
});
`;
