'use strict';
// The classic way to size a server, and the trap it sets in a container: one worker per os.cpus().
// Inside a capped container os.cpus() is the host's count, not the cap. Run as a single process it
// forks that many workers itself; under Rightsize's cluster launcher or PM2 it is already a worker and serves.
const cluster = require('node:cluster');
const os = require('node:os');
const { serve } = require('../_lib/http-app.js');

if (cluster.isPrimary && process.env.pm_id === undefined) {
  for (let i = 0; i < os.cpus().length; i++) cluster.fork();
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGINT', () => process.exit(0));
} else {
  serve((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ pid: process.pid, cpus: os.cpus().length }));
  });
}
