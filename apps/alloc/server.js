'use strict';
// Memory pressure: short-lived garbage for the GC on every request, plus a slow leak that grows
// RSS until a small memory cap gets the process OOM-killed.
const { serve } = require('../_lib/http-app.js');

const ALLOC_BYTES = Number(process.env.ALLOC_KB || 256) * 1024;
const RETAIN = Number(process.env.ALLOC_RETAIN ?? 0.05);
const retained = [];
let retainedBytes = 0;

serve((req, res) => {
  // Garbage: ~ALLOC_KB of small objects and strings (roughly 100 bytes each on the V8 heap).
  const garbage = [];
  for (let i = 0; i < ALLOC_BYTES / 100; i++) garbage.push({ i, s: `item-${i}-${Math.random()}` });

  // Leak: RETAIN of those bytes kept forever, off the V8 heap so the kernel (not V8's heap limit)
  // ends the process. Filling with a non-zero byte touches every page, so RSS really grows.
  const size = Math.round(ALLOC_BYTES * RETAIN);
  if (size > 0) {
    retained.push(Buffer.alloc(size, 0x5a));
    retainedBytes += size;
  }

  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ allocated: garbage.length, retained: retained.length, retainedMb: +(retainedBytes / 2 ** 20).toFixed(1) }));
});
