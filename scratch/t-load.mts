import http from 'node:http';
import { runLoad } from '../src-main/load/runner.ts';
const srv = http.createServer((q, s) => s.end('hello')).listen(0);
await new Promise((r) => srv.on('listening', r));
const port = (srv.address() as any).port;
for (const load of [{ model: 'closed', connections: 10 }, { model: 'rate', rate: 2000, connections: 10 }] as const) {
  const t = Date.now();
  const r = await runLoad({ host: '127.0.0.1', port, requests: [{ method: 'GET', path: '/' }], load, durationSec: 3, warmupSec: 1, timeoutSec: 10 },
    { onSecond: (s, w) => console.log(w ? 'warm' : 'meas', JSON.stringify(s)) });
  console.log(JSON.stringify(r), Date.now() - t, 'ms');
}
srv.close();
