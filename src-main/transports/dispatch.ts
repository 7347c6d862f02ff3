import type { z } from 'zod';
import { CALL_NAMES, ContractError, STREAM_NAMES, type CallName, type ContractErrorData, type Envelope, type StreamName } from '../contract/api.ts';
import { CALL_INPUTS, STREAM_INPUTS } from '../contract/schemas.ts';
import { DockerUnavailableError } from '../docker/client.ts';
import { MatrixInvalidError } from '../engine/matrix.ts';
import type { Lab } from '../service/lab.ts';

// The part of every transport that is the same: name check, input validation, the handler, and
// errors turned into data. Transports only move bytes.

function toErrorData(e: unknown): ContractErrorData {
  if (e instanceof ContractError) return e.toData();
  if (e instanceof MatrixInvalidError) return { code: 'MATRIX_INVALID', message: e.message, fields: e.problems };
  if (e instanceof DockerUnavailableError) return { code: 'DOCKER_UNAVAILABLE', message: e.message };
  return { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e) };
}

function invalid(error: z.ZodError, what: string): ContractErrorData {
  const fields = error.issues.map((i) => ({ path: i.path.join('.') || '(input)', message: i.message }));
  return { code: 'INVALID_INPUT', message: `Invalid input for ${what}: ${fields.map((f) => `${f.path}: ${f.message}`).join('; ')}`, fields };
}

const isCall = (name: string): name is CallName => (CALL_NAMES as string[]).includes(name);
const isStream = (name: string): name is StreamName => (STREAM_NAMES as string[]).includes(name);

export async function dispatch(lab: Lab, name: string, raw: unknown): Promise<Envelope<unknown>> {
  if (!isCall(name)) return { ok: false, error: { code: 'UNKNOWN_CALL', message: `There is no call "${name}".` } };
  const parsed = CALL_INPUTS[name].safeParse(raw === undefined ? {} : raw);
  if (!parsed.success) return { ok: false, error: invalid(parsed.error, name) };
  try {
    const handler = lab.handlers[name] as (input: unknown) => unknown;
    return { ok: true, value: await handler(parsed.data) };
  } catch (e) {
    return { ok: false, error: toErrorData(e) };
  }
}

/** Validates and opens a subscription; returns its stop function, or the error to send back. */
function openStream(lab: Lab, name: string, raw: unknown, send: (event: unknown) => void): { stop: () => void } | { error: ContractErrorData } {
  if (!isStream(name)) return { error: { code: 'UNKNOWN_CALL', message: `There is no stream "${name}".` } };
  const parsed = STREAM_INPUTS[name].safeParse(raw === undefined ? {} : raw);
  if (!parsed.success) return { error: invalid(parsed.error, name) };
  return { stop: lab.subscribe(name, parsed.data as never, send) };
}

/** Subscriptions of one client (a window, a socket), all stopped when it goes away. */
export class Subscriptions {
  private readonly stops = new Map<number, () => void>();
  constructor(private readonly lab: Lab, private readonly send: (id: number, event: unknown) => void, private readonly fail: (id: number, error: ContractErrorData) => void) {}

  open(id: number, stream: string, input: unknown): void {
    if (!Number.isInteger(id) || this.stops.has(id)) return this.fail(id, { code: 'INVALID_INPUT', message: `Subscription id ${id} is not a new whole number.` });
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

}
