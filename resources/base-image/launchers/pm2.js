'use strict';
// `pm2` launch mode: pm2-runtime, with one correction. pm2-runtime runs PM2's God in its own
// process (no daemon), and God forks cluster-mode instances with node:cluster, whose workers get
// the primary's arguments unless told otherwise. So every instance's process.argv started with
// pm2-runtime's own command line ("start /srv/app/x.js --name x -i 2 -- …") before the app's
// arguments: an app that reads its arguments positionally (json-server: "Unsupported source start")
// exits at once. The daemon PM2 (`pm2 start`) has no such arguments, so there apps see only theirs.
// Same command line as pm2-runtime: node pm2.js start ENTRY --name N -i N [-- ARGS].
const cluster = require('node:cluster');
const os = require('node:os');

cluster.setupPrimary({ args: [] }); // God's own setupPrimary({exec}) later keeps this setting

// The container's exit code is the app's when pm2-runtime gives up on it. pm2-runtime means to exit
// 2 after "0 application online" for some seconds, but its God runs in this same process and exits 0
// as it stops the apps: which code wins is a race (CI saw 0, the tests here 2), and neither is the
// app's. So an exit we were not asked for (no SIGTERM/SIGINT) carries the app's last non-zero exit
// code when it had one; a stop we were asked for keeps pm2-runtime's own code.
const exit = process.exit;
let appCode = 0;
let stopping = false;
cluster.on('exit', (_worker, code) => {
  if (code) appCode = code;
});
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    stopping = true;
    // Before pm2-runtime has connected it listens to nothing: keep the default of ending at once.
    if (process.listenerCount(signal) === 1) exit.call(process, 128 + os.constants.signals[signal]);
  });
}
process.exit = function (code) {
  return exit.call(process, !stopping && appCode ? appCode : code);
};

require('pm2/lib/binaries/Runtime4Docker.js'); // resolved from /opt/rightsize/node_modules
