'use strict';
// Builds and serialises a fresh document per request: object allocation + JSON.stringify on the event loop.
const { serve, fakeDoc } = require('../_lib/http-app.js');

serve((req, res) => {
  const body = JSON.stringify(fakeDoc(20));
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
});
