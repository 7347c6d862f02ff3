// One connection's requests: which entry of the mix comes next (in turn, or chosen by weight from the
// connection's seeded generator), its values drawn, its bytes built; and each answer judged (the
// status it expects, the values a sequence step captures). The load thread puts one on each client.
import { failureReason } from '../common/failure-reason.ts';
import type { MixEntry, RequestSpec } from '../model/requests.ts';
import { captureText, compileCapture, type Capturer } from './capture.ts';
import { DEFAULT_SEED, rngFor, type Rng } from './random.ts';
import { isWeighted, mixRoutes, routeName, stepsOf, textsOf, weightOf, type MixRoutes } from './routes.ts';
import {
  callsOf,
  checkedTemplate,
  compileParts,
  compileTemplate,
  type CsvTables,
  type Render,
  type RenderContext,
} from './template.ts';

/** What a load plan carries of a mix: structured-cloned into each thread, compiled there. */
export interface MixPlan {
  entries: MixEntry[];
  /** The CSV columns its templates read (apps/mix-data.ts). */
  csv?: CsvTables;
  seed?: number;
}

type Text = string | Render;

interface Step {
  route: number;
  method: string;
  path: Text;
  headers: [string, Text][];
  body: Text | undefined;
  status: number | undefined;
  captures: { name: string; take: Capturer; text: string }[];
  /** Its bytes, when nothing in it varies: built once. */
  fixed: Outgoing | undefined;
  /** Else its head (request line and headers, Host included) as literal runs and renderers, for the load's path. */
  head: (string | Render)[];
  /** Reads a CSV file: the row is drawn once per request. */
  readsCsv: boolean;
}

/** A request written: what autocannon's client sends and queues until its answer. */
export interface Outgoing {
  /** What autocannon writes to the socket (its name for it): bytes built once, or a drawn request's text. */
  requestBuffer: Buffer | string;
  step: Step;
}

export interface CompiledMix {
  entries: Step[][];
  /** Cumulative weights, for a choice by weight; absent: the entries go in turn. */
  cumulative: number[] | undefined;
  routes: MixRoutes;
  seed: number;
}

const text = (t: string, csv: CsvTables): Text => compileTemplate(checkedTemplate(t), csv);

const render = (t: Text, x: RenderContext): string => (typeof t === 'string' ? t : t(x));

/** A request with its values drawn: what try-out asks, and what its bytes are built from. */
export interface DrawnRequest {
  method: string;
  path: string;
  headers: [string, string][];
  body: string;
}

function draw(s: Step, x: RenderContext): DrawnRequest {
  return {
    method: s.method,
    path: render(s.path, x),
    headers: s.headers.map(([k, v]) => [k, render(v, x)]),
    body: s.body === undefined ? '' : render(s.body, x),
  };
}

/** A request's head as bytes are built: the request line, Host (unless it sets its own), keep-alive, its headers. */
function headParts(r: RequestSpec, host: string, csv: CsvTables): (string | Render)[] {
  const parts = (t: string): (string | Render)[] => compileParts(checkedTemplate(t), csv);
  const headers = Object.entries(r.headers ?? {});
  const all: (string | Render)[] = [
    `${r.method} `,
    ...parts(r.path),
    ' HTTP/1.1\r\n',
    headers.some(([k]) => k.toLowerCase() === 'host') ? '' : `Host: ${host}\r\n`,
    'Connection: keep-alive\r\n',
    ...headers.flatMap(([k, v]) => [`${k}: `, ...parts(v), '\r\n']),
  ];
  // Adjacent literal runs joined: fewer pieces to concatenate per request.
  const out: (string | Render)[] = [];
  for (const p of all)
    if (typeof p === 'string' && typeof out[out.length - 1] === 'string') out[out.length - 1] += p;
    else out.push(p);
  return out;
}

/**
 * The load's path: the step's request with its values drawn, as one string. The socket encodes it as it writes
 * (a Buffer made here first costs an allocation and a copy per request).
 */
function make(s: Step, x: RenderContext): string {
  let text = '';
  for (const p of s.head) text += typeof p === 'string' ? p : p(x);
  const body = s.body === undefined ? '' : typeof s.body === 'string' ? s.body : s.body(x);
  return body ? `${text}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}` : `${text}\r\n`;
}

/** Compiles a mix for one thread; `host` is the Host header ("host:port"); `inTurn`: every entry in order (try-out). */
export function compileMix(plan: MixPlan, host: string, inTurn = false): CompiledMix {
  const csv = plan.csv ?? {};
  const routes = mixRoutes(plan.entries);
  const step = (r: RequestSpec): Step => {
    const s: Step = {
      route: routes.names.indexOf(routeName(r)),
      method: r.method,
      path: text(r.path, csv),
      headers: Object.entries(r.headers ?? {}).map(([k, v]) => [k, text(v, csv)]),
      body: r.body === undefined ? undefined : text(r.body, csv),
      status: r.status,
      captures: Object.entries(r.capture ?? {}).map(([name, c]) => ({
        name,
        take: compileCapture(c),
        text: captureText(c),
      })),
      fixed: undefined,
      head: headParts(r, host, csv),
      readsCsv: textsOf(r).some((t) => callsOf(checkedTemplate(t), 'csv').length > 0),
    };
    const varies =
      typeof s.path !== 'string' || typeof s.body === 'function' || s.headers.some(([, v]) => typeof v !== 'string');
    if (!varies) s.fixed = { requestBuffer: Buffer.from(make(s, {} as RenderContext)), step: s };
    return s;
  };
  const entries = plan.entries.map((e) => stepsOf(e).map(step));
  let sum = 0;
  const cumulative = isWeighted(plan.entries) && !inTurn ? plan.entries.map((e) => (sum += weightOf(e))) : undefined;
  return { entries, cumulative, routes, seed: plan.seed ?? DEFAULT_SEED };
}

/** The status a step expects (absent: any 2xx). */
const expected = (s: Step, status: number): boolean =>
  s.status !== undefined ? status === s.status : status >= 200 && status < 300;

/**
 * Whether judging this answer reads its body and fields (a failure's words, a capture): a client that keeps them
 * only then spares the common answer the copies.
 */
export const answerIsRead = (o: Outgoing, status: number): boolean =>
  !expected(o.step, status) || o.step.captures.length > 0;

/** One connection's place in the mix. */
export class ConnectionMix {
  private readonly rng: Rng;
  private entry = -1;
  private pos = 0;
  private n = 0;
  private rows: Record<string, number> = {};
  private readonly ctx: RenderContext;

  constructor(
    private readonly mix: CompiledMix,
    connection: number,
    totalConnections: number,
  ) {
    this.rng = rngFor(mix.seed, connection);
    const vars: Record<string, string> = {};
    this.ctx = {
      rng: this.rng,
      vars,
      seq: () => connection + this.n++ * totalConnections,
      row: (file, count) => (this.rows[file] ??= this.rng.int(0, count - 1)),
    };
  }

  /** The next request of this connection. */
  next(): Outgoing {
    const s = this.advance();
    if (s.fixed) return s.fixed;
    if (s.readsCsv) this.rows = {};
    return { requestBuffer: make(s, this.ctx), step: s };
  }

  /** The next request with its values drawn, for a client other than the load's (try-out), which sends it itself. */
  nextDrawn(): { out: Outgoing; request: DrawnRequest } {
    const s = this.advance();
    this.rows = {};
    return { out: { requestBuffer: '', step: s }, request: draw(s, this.ctx) };
  }

  /** Steps on to the next request's step: on in its sequence, else the next entry (in turn, or by weight). */
  private advance(): Step {
    const m = this.mix;
    const steps = m.entries[this.entry];
    if (steps && this.pos < steps.length - 1) this.pos++;
    else {
      this.pos = 0;
      if (!m.cumulative) this.entry = (this.entry + 1) % m.entries.length;
      else {
        const u = this.rng.float() * m.cumulative[m.cumulative.length - 1]!;
        let i = 0;
        while (m.cumulative[i]! <= u) i++;
        this.entry = i;
      }
      if (m.entries[this.entry]!.length > 1) for (const k of Object.keys(this.ctx.vars)) delete this.ctx.vars[k];
    }
    return m.entries[this.entry]![this.pos]!;
  }

  /**
   * Judges an answer: undefined when it counts as good, else why not ("503 sorry, too many clients already",
   * "capture token: $.token not in the 200 response"). A failed step ends its sequence: the next request starts anew.
   */
  answered(o: Outgoing, status: number, body: string, rawHeaders: readonly string[]): string | undefined {
    const s = o.step;
    const ok = expected(s, status);
    let why = ok ? undefined : failureReason(status, body);
    if (ok && s.captures.length) {
      let doc: unknown;
      let parsed = false;
      const json = (): unknown => {
        if (!parsed) {
          parsed = true;
          try {
            doc = JSON.parse(body);
          } catch {
            doc = undefined;
          }
        }
        return doc;
      };
      for (const c of s.captures) {
        const v = c.take(body, rawHeaders, json);
        if (v === undefined) {
          why = `capture ${c.name}: ${c.text} not in the ${status} response`;
          break;
        }
        this.ctx.vars[c.name] = v;
      }
    }
    if (why !== undefined && o.step === this.mix.entries[this.entry]?.[this.pos]) this.pos = Infinity;
    return why;
  }
}
