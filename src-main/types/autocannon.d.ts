// The slice of autocannon's programmatic API the load worker uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';
  interface Options {
    url: string;
    connections: number;
    pipelining: number;
    duration: number;
    timeout: number;
    requests: { method?: string; path: string; headers?: Record<string, string>; body?: string }[];
    setupClient?: (client: unknown) => void;
  }
  interface Instance extends EventEmitter {
    stop(): void;
  }
  function autocannon(opts: Options, done: (err: Error | null, result: unknown) => void): Instance;
  export default autocannon;
}
