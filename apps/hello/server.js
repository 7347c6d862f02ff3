'use strict';
// Baseline: the cheapest possible response, so the numbers show HTTP + runtime overhead only.
const { serve } = require('../_lib/http-app.js');

serve((req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('hello world');
});
