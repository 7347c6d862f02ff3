'use strict';
// `pm2` launch mode: pm2-runtime, with one correction. pm2-runtime runs PM2's God in its own
// process (no daemon), and God forks cluster-mode instances with node:cluster, whose workers get
// the primary's arguments unless told otherwise. So every instance's process.argv started with
// pm2-runtime's own command line ("start /srv/app/x.js --name x -i 2 -- …") before the app's
// arguments: an app that reads its arguments positionally (json-server: "Unsupported source start")
// exits at once. The daemon PM2 (`pm2 start`) has no such arguments, so there apps see only theirs.
// Same command line as pm2-runtime: node pm2.js start ENTRY --name N -i N [-- ARGS].
const cluster = require('node:cluster');

cluster.setupPrimary({ args: [] }); // God's own setupPrimary({exec}) later keeps this setting
require('pm2/lib/binaries/Runtime4Docker.js'); // resolved from /opt/rightsize/node_modules
