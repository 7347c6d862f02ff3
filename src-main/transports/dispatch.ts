import { z } from 'zod';
import {
  CALL_NAMES,
  STREAM_NAMES,
  type CallName,
  type ContractErrorData,
  type Envelope,
  type StreamClientMessage,
  type StreamName,
} from '../contract/api.ts';
import { CALL_INPUTS, STREAM_INPUTS } from '../contract/schemas.ts';
import { plainProblems, schemaKeysAt } from '../common/issues.ts';
import { contractErrorData } from '../service/errors.ts';
import type { Lab } from '../service/lab.ts';

// The part of every transport that is the same: name check, input validation, the handler, and
// errors turned into data (translated by the service, service/errors.ts). Transports only move bytes.

/** Every problem of an input in plain words, each naming its field, with a suggestion for a misspelt one. */
function invalid(error: z.ZodError, what: string, schema?: z.ZodType, input?: unknown): ContractErrorData {
  const fields = plainProblems(error, input, { knownKeys: (path) => (schema ? schemaKeysAt(schema, path) : []) });
  return {
    code: 'INVALID_INPUT',
    message: `Invalid input for ${what}: ${fields.map((f) => `${f.path}: ${f.message}`).join(' ')}`,
    fields,
  };
}

const isCall = (name: string): name is CallName => (CALL_NAMES as string[]).includes(name);
const isStream = (name: string): name is StreamName => (STREAM_NAMES as string[]).includes(name);

export async function dispatch(lab: Lab, name: string, raw: unknown): Promise<Envelope<unknown>> {
  if (!isCall(name)) return { ok: false, error: { code: 'UNKNOWN_CALL', message: `There is no call "${name}".` } };
  const input = raw === undefined ? {} : raw;
  const parsed = CALL_INPUTS[name].safeParse(input);
  if (!parsed.success) return { ok: false, error: invalid(parsed.error, name, CALL_INPUTS[name], input) };
  try {
    const handler = lab.handlers[name] as (input: unknown) => unknown;
    return { ok: true, value: await handler(parsed.data) };
  } catch (e) {
    return { ok: false, error: contractErrorData(e, name) };
  }
}

/** Validates and opens a subscription; returns its stop function, or the error to send back. */
function openStream(
  lab: Lab,
  name: string,
  raw: unknown,
  send: (event: unknown) => void,
): { stop: () => void } | { error: ContractErrorData } {
  if (!isStream(name)) return { error: { code: 'UNKNOWN_CALL', message: `There is no stream "${name}".` } };
  const input = raw === undefined ? {} : raw;
  const parsed = STREAM_INPUTS[name].safeParse(input);
  if (!parsed.success) return { error: invalid(parsed.error, name, STREAM_INPUTS[name], input) };
  return { stop: lab.subscribe(name, parsed.data as never, send) };
}

/** More live subscriptions than this on one client is a bug or an attack: each holds a listener. */
export const MAX_SUBSCRIPTIONS = 256;

const StreamMessage = z.discriminatedUnion('op', [
  z
    .object({
      op: z.literal('subscribe'),
      id: z.number().int().safe(),
      stream: z.string().max(100),
      input: z.unknown(),
    })
    .strict(),
  z.object({ op: z.literal('unsubscribe'), id: z.number().int().safe() }).strict(),
]);

/**
 * A stream message from a client (socket text or IPC payload), checked: anything that is not a
 * well-formed subscribe/unsubscribe is an error value, never a throw.
 */
export function parseStreamMessage(
  raw: unknown,
): { ok: true; message: StreamClientMessage } | { ok: false; id: number; error: ContractErrorData } {
  const m = StreamMessage.safeParse(raw);
  if (m.success) return { ok: true, message: m.data as StreamClientMessage };
  const id =
    typeof raw === 'object' && raw !== null && Number.isSafeInteger((raw as { id?: unknown }).id)
      ? (raw as { id: number }).id
      : -1;
  return {
    ok: false,
    id,
    error: invalid(
      m.error,
      'a stream message ({op: "subscribe", id, stream, input} or {op: "unsubscribe", id})',
      StreamMessage,
      raw,
    ),
  };
}

/** Subscriptions of one client (a window, a socket), all stopped when it goes away. */
export class Subscriptions {
  private readonly stops = new Map<number, () => void>();
  constructor(
    private readonly lab: Lab,
    private readonly send: (id: number, event: unknown) => void,
    private readonly fail: (id: number, error: ContractErrorData) => void,
  ) {}

  /** Handles one client message, whatever it is: a malformed one gets an error back. */
  handle(raw: unknown): void {
    const r = parseStreamMessage(raw);
    if (!r.ok) return this.fail(r.id, r.error);
    if (r.message.op === 'subscribe') this.open(r.message.id, r.message.stream, r.message.input);
    else this.close(r.message.id);
  }

  open(id: number, stream: string, input: unknown): void {
    if (!Number.isInteger(id) || this.stops.has(id))
      return this.fail(id, { code: 'INVALID_INPUT', message: `Subscription id ${id} is not a new whole number.` });
    if (this.stops.size >= MAX_SUBSCRIPTIONS)
      return this.fail(id, {
        code: 'CONFLICT',
        message: `At most ${MAX_SUBSCRIPTIONS} subscriptions at once: unsubscribe some first.`,
      });
    const r = openStream(this.lab, stream, input, (event) => this.send(id, event));
    if ('error' in r) this.fail(id, r.error);
    else this.stops.set(id, r.stop);
  }

  close(id: number): void {
    this.stops.get(id)?.();
    this.stops.delete(id);
  }

  closeAll(): void {
    for (const stop of this.stops.values()) stop();
    this.stops.clear();
  }

  get size(): number {
    return this.stops.size;
  }
}
