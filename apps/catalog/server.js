'use strict';
// A catalogue and orders API on PostgreSQL, as teams write them: `pg` with a pool per process
// (PG_POOL_SIZE), product reads and order writes. Its database is a dependency, started fresh beside
// it for every cell, so each cell starts from the same rows; it listens once the database answers.
const { Pool } = require('pg');
const { serve } = require('../_lib/http-app.js');

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.PG_POOL_SIZE || 5) });
pool.on('error', () => {}); // an idle connection the database closed: the next query opens another

const json = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

serve(
  async (req, res) => {
    try {
      const product = /^\/products\/(\d+)$/.exec(req.url);
      if (product && req.method === 'GET') {
        const r = await pool.query('SELECT id, name, price FROM products WHERE id = $1', [Number(product[1])]);
        return r.rows[0] ? json(res, 200, r.rows[0]) : json(res, 404, {});
      }
      if (req.url === '/orders' && req.method === 'POST') {
        const r = await pool.query('INSERT INTO orders (product_id, qty) VALUES (1 + floor(random() * 50), 1) RETURNING id');
        return json(res, 201, { id: r.rows[0].id });
      }
      json(res, 404, {});
    } catch (e) {
      // "sorry, too many clients already" when every process's pool together asks more than max_connections.
      json(res, 503, { error: e.message });
    }
  },
  { onStart: () => pool.query('SELECT 1') },
);
