import 'vitest-canvas-mock';
import { afterEach } from 'vitest';
import { cleanup } from '@testing-library/svelte';
import type { CallName, ContractErrorData, EngineStatus, Envelope, StreamName, StreamServerMessage } from '../../src-main/contract/api.ts';

/**
 * The components talk to the engine through `window.rightsize`, as in Electron. Tests answer calls
 * through `fakeEngine.answers` and push stream events with `fakeEngine.emit`.
 */
export const fakeEngine = {
  calls: [] as { name: CallName; input: unknown }[],
  answers: {} as Partial<Record<CallName, (input: never) => unknown>>,
  subs: new Map<number, { stream: StreamName; input: unknown; on: (m: StreamServerMessage) => void }>(),
  emit(stream: StreamName, event: unknown): void {
    for (const [id, s] of this.subs) if (s.stream === stream) s.on({ op: 'event', id, event });
  },
};
/** An engine status with Docker up: 2 cores, 8 GiB. */
export const up: EngineStatus = { docker: { ok: true, version: '28', cpus: 2, memoryBytes: 8 * 2 ** 30, cgroupVersion: '2' }, limits: { cores: 2, memoryMb: 8192, minMemoryMb: 32, largeMatrixCells: 500 }, activeRunId: null, checkedAt: '' };
/** Throw this from a fake answer to fail the call with a contract error (e.g. APP_INVALID with its fields). */
export function engineError(data: ContractErrorData): Error {
  return Object.assign(new Error(data.message), { data });
}
let next = 1;
(window as unknown as { rightsize: unknown }).rightsize = {
  async call(name: CallName, input: unknown): Promise<Envelope<unknown>> {
    fakeEngine.calls.push({ name, input });
    const answer = fakeEngine.answers[name];
    if (!answer) return { ok: false, error: { code: 'UNKNOWN_CALL', message: `no fake answer for ${name}` } };
    try {
      return { ok: true, value: await answer(input as never) };
    } catch (e) {
      return { ok: false, error: (e as { data?: never }).data ?? { code: 'INTERNAL', message: (e as Error).message } };
    }
  },
  subscribe(stream: StreamName, input: unknown, on: (m: StreamServerMessage) => void) {
    const id = next++;
    fakeEngine.subs.set(id, { stream, input, on });
    return () => fakeEngine.subs.delete(id);
  },
};
// jsdom has no matchMedia; the theme module asks for the OS colour scheme.
window.matchMedia ??= ((q: string) => ({ matches: false, media: q, addEventListener() {}, removeEventListener() {} })) as unknown as typeof window.matchMedia;

afterEach(() => {
  cleanup();
  fakeEngine.calls = [];
  fakeEngine.answers = {};
  fakeEngine.subs.clear();
});
// jsdom has no layout, so no ResizeObserver; chart.js only needs it to exist.
globalThis.ResizeObserver ??= class {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
} as unknown as typeof ResizeObserver;
