'use strict';
// Writes each generated document to its own file before answering: fs writes + metadata churn.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { serve, fakeDoc } = require('../_lib/http-app.js');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rightsize-json-write-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
let seq = 0;

serve(async (req, res) => {
  const body = JSON.stringify(fakeDoc(20));
  const file = path.join(dir, `${seq++}.json`);
  await fs.promises.writeFile(file, body);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
  // Delete in the background once answered: the file count stays bounded by concurrency,
  // and the unlink cost stays in the measurement without adding to this request's latency.
  fs.unlink(file, () => {});
});
