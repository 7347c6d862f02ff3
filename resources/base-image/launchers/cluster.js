'use strict';
// `cluster` launch mode: runs as PID 1 in the container and keeps RS_WORKERS copies of RS_ENTRY
// alive. Stdout lines starting with `rightsize:` are read by the engine.
//   RS_ENTRY           absolute path of the app's entry file
//   RS_WORKERS         number of workers (never os.cpus(): under a CPU cap it reports host cores)
//   RS_RECYCLE_RSS_MB  optional: replace workers whose RSS passes this many MB
//   RS_ARGS            optional: JSON array of arguments for the entry file
const cluster = require('node:cluster');
const fs = require('node:fs');
const path = require('node:path');

function fail(message) {
  console.error(`rightsize:launcher-error ${message}`);
  process.exit(2);
}

const entry = process.env.RS_ENTRY;
if (!entry || !path.isAbsolute(entry) || !fs.existsSync(entry)) fail(`RS_ENTRY must be an existing absolute path, got ${JSON.stringify(entry)}`);
const workers = Number(process.env.RS_WORKERS);
if (!Number.isInteger(workers) || workers < 1) fail(`RS_WORKERS must be an integer >= 1, got ${JSON.stringify(process.env.RS_WORKERS)}`);
const recycleMb = process.env.RS_RECYCLE_RSS_MB ? Number(process.env.RS_RECYCLE_RSS_MB) : 0;
if (!(recycleMb >= 0)) fail(`RS_RECYCLE_RSS_MB must be a positive number, got ${JSON.stringify(process.env.RS_RECYCLE_RSS_MB)}`);

let args = [];
try {
  args = process.env.RS_ARGS ? JSON.parse(process.env.RS_ARGS) : [];
} catch {
  fail(`RS_ARGS must be a JSON array of strings, got ${JSON.stringify(process.env.RS_ARGS)}`);
}
if (!Array.isArray(args) || args.some((a) => typeof a !== 'string')) fail(`RS_ARGS must be a JSON array of strings, got ${JSON.stringify(process.env.RS_ARGS)}`);

const GRACE_MS = 5000; // time a recycled worker gets to finish in-flight requests
const recycled = new Set(); // workers we retired on purpose: their exit is not a "replacement"
let stopping = false;
let listening = 0;

cluster.setupPrimary({ exec: entry, args });

function fork() {
  const worker = cluster.fork();
  worker.once('listening', () => {
    worker.listened = true;
    if (++listening === workers) console.log(`rightsize:workers-listening n=${workers}`);
  });
  return worker;
}

cluster.on('exit', (worker, code, signal) => {
  if (stopping) return;
  if (recycled.delete(worker)) return;
  console.log(`rightsize:worker-replaced pid=${worker.process.pid} code=${code} signal=${signal}`);
  // A worker that never got to listen is probably crashing at start: back off instead of
  // burning the (capped) CPU in a fork loop.
  setTimeout(() => stopping || fork(), worker.listened ? 0 : 1000);
});

function rssMb(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0; // already gone, or no /proc (not Linux)
  }
}

function recycleCheck() {
  for (const worker of Object.values(cluster.workers)) {
    if (!worker || recycled.has(worker) || !worker.listened) continue;
    const rss = rssMb(worker.process.pid);
    if (rss <= recycleMb) continue;
    recycled.add(worker);
    console.log(`rightsize:worker-recycled pid=${worker.process.pid} rss_mb=${Math.round(rss)}`);
    // Start the replacement first and retire the old worker once it can take traffic,
    // so capacity never drops below N.
    let retired = false;
    const retire = () => {
      if (retired) return;
      retired = true;
      if (worker.isConnected()) worker.disconnect(); // no new connections; exits once in-flight ones end
      setTimeout(() => worker.process.kill('SIGKILL'), GRACE_MS).unref();
    };
    const fresh = fork();
    fresh.once('listening', retire);
    fresh.once('exit', retire);
  }
}

function stop() {
  if (stopping) return;
  stopping = true;
  const alive = Object.values(cluster.workers).filter(Boolean);
  if (alive.length === 0) process.exit(0);
  let left = alive.length;
  for (const worker of alive) {
    worker.once('exit', () => --left === 0 && process.exit(0));
    worker.process.kill('SIGTERM');
  }
  // Workers exit within ~1 s on SIGTERM (apps/_lib/http-app.js); don't wait on a stuck one.
  setTimeout(() => {
    for (const worker of alive) worker.process.kill('SIGKILL');
    process.exit(0);
  }, 2000).unref();
}

process.on('SIGTERM', stop);
process.on('SIGINT', stop);
for (let i = 0; i < workers; i++) fork();
if (recycleMb > 0) setInterval(recycleCheck, 1000).unref();
