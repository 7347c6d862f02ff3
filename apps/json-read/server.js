'use strict';
// Reads a random pre-generated JSON file per request: fs reads on the libuv pool + page cache.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { serve, fakeDoc } = require('../_lib/http-app.js');

const COUNT = Number(process.env.JSON_FILES || 500);
// One directory per process: cluster/pm2 workers each generate their own set without racing.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rightsize-json-read-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const file = (i) => path.join(dir, `${i}.json`);

serve(
  async (req, res) => {
    const body = await fs.promises.readFile(file(Math.floor(Math.random() * COUNT)));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  },
  {
    // Listening only once every file exists, so no request can hit a missing file.
    onStart: async () => {
      for (let i = 0; i < COUNT; i++) await fs.promises.writeFile(file(i), JSON.stringify(fakeDoc(20)));
    },
  },
);
