import http from 'node:http';

export interface Answer {
  status: number;
  body: Buffer;
  headers: http.IncomingHttpHeaders;
}

/** One request with a timeout, on a fresh connection. */
export function request(host: string, port: number, opts: { method?: string; path: string; headers?: Record<string, string>; body?: string }, timeoutMs = 5000): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host, port, method: opts.method ?? 'GET', path: opts.path, headers: opts.headers, agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${host}:${port}${opts.path} within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}
