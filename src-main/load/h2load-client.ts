// HTTP/2 load from h2load (Debian's nghttp2-client) where the cell asks for what it can send: closed loop, one
// fixed GET or POST, one target. In C it does about three times the requests per CPU-second of Node's http2
// client (BENCHMARKS.md, "HTTP/2: the load generator's cost"), so a load thread stops being the ceiling of h2
// cells. Its per-request log (start, status, duration) is read each second into the same histograms and counts
// as the other clients' answers (docs/ARCHITECTURE.md, "HTTP/2"); everything else stays on h2-client.ts.
import { type ChildProcess, spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isSequence, type MixEntry, type RequestSpec } from '../model/requests.ts';
import { parseTaskStat } from './host-cpu.ts';

/** What h2load is asked to do for one load thread. */
export interface H2loadSpec {
  origin: string;
  request: RequestSpec;
  connections: number;
  streams: number;
  /** A safety stop, should the engine never say stop. */
  maxSec: number;
  cpus?: string;
}

/** Why h2load cannot send this thread's load (Node's client does), or undefined when it can. */
export function h2loadUnfit(p: {
  model: string;
  requests: readonly MixEntry[];
  replicas?: number;
  tlsResume?: boolean;
}): string | undefined {
  if (p.model !== 'closed') return 'a constant rate (h2load paces connections, not requests)';
  if ((p.replicas ?? 1) > 1) return 'several replicas';
  if (p.tlsResume) return 'resumed TLS sessions (it offers none)';
  const [only, ...more] = p.requests;
  if (!only || more.length || isSequence(only)) return 'several requests';
  if (only.method !== 'GET' && only.method !== 'POST') return `a ${only.method} request`;
  if (only.capture) return 'captures';
  const texts = [only.path, only.body ?? '', ...Object.entries(only.headers ?? {}).flat()];
  if (texts.some((t) => t.includes('{{'))) return 'templates';
  return undefined;
}

/**
 * The h2load on PATH, or undefined: not Linux, not installed (Debian: nghttp2-client), or RIGHTSIZE_H2_CLIENT=node
 * (a server that closes its connections: h2load does not open them again).
 */
export function h2loadBinary(): string | undefined {
  if (process.platform !== 'linux' || process.env.RIGHTSIZE_H2_CLIENT === 'node') return undefined;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const f = path.join(dir, 'h2load');
    if (dir && existsSync(f)) return f;
  }
  return undefined;
}

/** Why a thread of h2load's stops: the server closed connections it does not open again; and what to do. */
export const h2loadLostWords = (lost: number, of: number): string =>
  `the server closed ${lost} of ${of} HTTP/2 connections, and h2load (which sends a closed loop of one request) ` +
  "does not open them again: measure this app over HTTP/2 with Node's client, which does " +
  '(RIGHTSIZE_H2_CLIENT=node), or keep its connections open';

/** One answer from h2load's log: when it ended (epoch ms), its status (-1: the stream failed) and duration (ms). */
export interface H2loadAnswer {
  endMs: number;
  status: number;
  durationMs: number;
}

/** Parses whole lines of h2load's log ("start µs since epoch \t status \t µs until the response ended"). */
export function parseH2loadLog(text: string): H2loadAnswer[] {
  const out: H2loadAnswer[] = [];
  for (const line of text.split('\n')) {
    const [start, status, us] = line.split('\t');
    if (us === undefined) continue;
    const durationMs = Number(us) / 1000;
    out.push({ endMs: Number(start) / 1000 + durationMs, status: Number(status), durationMs });
  }
  return out;
}

/** h2load running one thread's connections, its log read as it grows. */
export class H2loadProcess {
  private readonly dir = mkdtempSync(path.join(os.tmpdir(), 'rightsize-h2load-'));
  private readonly log = path.join(this.dir, 'requests.tsv');
  private readonly child: ChildProcess;
  private fd: number | undefined;
  private partial = '';
  private bytesRead = 0;
  private exitCode: number | null | undefined;
  private stderr = '';
  private last = { cpuMs: 0, bytes: 0 };
  /** Resolves once it has exited and been waited for: a thread that leaves before that leaves a zombie behind. */
  readonly gone: Promise<void>;

  constructor(binary: string, s: H2loadSpec) {
    const args = ['-t', '1', '-c', String(s.connections), '-m', String(s.streams), '-D', String(Math.ceil(s.maxSec))];
    args.push(`--log-file=${this.log}`);
    for (const [k, v] of Object.entries(s.request.headers ?? {}))
      if (k.toLowerCase() !== 'host') args.push('-H', `${k}: ${v}`);
    if (s.request.method === 'POST') {
      const body = path.join(this.dir, 'body');
      writeFileSync(body, s.request.body ?? '');
      args.push('-d', body);
    }
    args.push(`${s.origin}${s.request.path}`);
    // The thread's cores: the same as the load thread that reads it, so the two share what the load was given.
    const [cmd, all] = s.cpus ? ['taskset', ['-c', s.cpus, binary, ...args]] : [binary, args];
    this.child = spawn(cmd, all, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child.stderr?.on('data', (b: Buffer) => (this.stderr = (this.stderr + b.toString()).slice(-2000)));
    this.child.on('exit', (code) => (this.exitCode = code));
    this.gone = new Promise((resolve) => this.child.once('close', () => resolve()));
    this.child.on('error', (e) => ((this.exitCode = -1), (this.stderr += e.message)));
  }

  /** Answers logged since the last call, in the order h2load ended them. */
  drain(): H2loadAnswer[] {
    if (this.fd === undefined) {
      if (!existsSync(this.log)) return [];
      this.fd = openSync(this.log, 'r');
    }
    const chunks: Buffer[] = [];
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let n; (n = readSync(this.fd, buf, 0, buf.length, this.bytesRead)) > 0;) {
      chunks.push(Buffer.from(buf.subarray(0, n)));
      this.bytesRead += n;
    }
    const text = this.partial + Buffer.concat(chunks).toString('latin1');
    const cut = text.lastIndexOf('\n') + 1;
    this.partial = text.slice(cut);
    return parseH2loadLog(text.slice(0, cut));
  }

  /** h2load's CPU time so far (ms) and the bytes it has read from its sockets (its log is written, not read). */
  usage(): { cpuMs: number; bytes: number } {
    const pid = this.child.pid;
    if (pid === undefined || this.exitCode !== undefined) return this.last;
    try {
      const ticks = parseTaskStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.ticks;
      const io = /rchar: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
      this.last = {
        cpuMs: ticks === undefined ? this.last.cpuMs : ticks * 10,
        bytes: Number(io?.[1] ?? this.last.bytes),
      };
    } catch {
      /* it has just ended: the last reading stands */
    }
    return this.last;
  }

  /**
   * Its connections still open (its sockets), or undefined where /proc cannot tell: h2load does not open a
   * connection again once the server closed it, so fewer than it was given is load no longer sent.
   */
  openConnections(): number | undefined {
    const pid = this.child.pid;
    if (pid === undefined || this.exitCode !== undefined) return undefined;
    try {
      const fds = readdirSync(`/proc/${pid}/fd`);
      return fds.filter((fd) => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:');
        } catch {
          return false;
        }
      }).length;
    } catch {
      return undefined;
    }
  }

  /** Whether it has ended by itself: at its safety stop (0) or failing (its words). */
  ended(): { code: number | null; words: string } | undefined {
    if (this.exitCode === undefined) return undefined;
    return { code: this.exitCode, words: this.words() };
  }

  private words(): string {
    const last = this.stderr.trim().split('\n').at(-1);
    return `h2load exited with ${this.exitCode}${last ? `: ${last}` : ''}`;
  }

  destroy(): void {
    if (this.exitCode === undefined) this.child.kill('SIGKILL');
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
