'use strict';
// Serves fixed in-memory payloads: throughput is bounded by socket writes, not by JS work.
const { serve } = require('../_lib/http-app.js');

// Deterministic content, built once at start.
const payload = (size) => Buffer.alloc(size, 'abcdefghijklmnopqrstuvwxyz');
const FILES = { '/1k': payload(1024), '/32k': payload(32 * 1024), '/1m': payload(1024 * 1024) };

serve((req, res) => {
  const body = FILES[req.url];
  if (!body) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('try /1k, /32k or /1m');
    return;
  }
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
  res.end(body);
});
