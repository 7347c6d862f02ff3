// A vitest reporter for scripts/test.mjs: writes what happened to $RIGHTSIZE_SUMMARY as JSON, with
// what the built-in JSON reporter leaves out: errors of hooks (a failed beforeAll/afterAll marks no
// test failed), unhandled errors, and the reason given for each skip (vitest's `ctx.skip(reason)`).
import { writeFileSync } from 'node:fs';
import type { Reporter, SerializedError, TestModule, TestRunEndReason } from 'vitest/node';

export interface SummaryTest {
  name: string;
  state: 'passed' | 'failed' | 'skipped' | 'pending';
  /** 'skip' | 'todo' | 'run' | 'only': how the test was declared. */
  mode: string;
  note?: string;
  errors: string[];
}

export interface SummaryModule {
  file: string;
  project: string;
  state: string;
  /** Errors not tied to one test: loading the file, beforeAll/afterAll of the file or of a describe. */
  errors: string[];
  tests: SummaryTest[];
}

export interface Summary {
  reason: TestRunEndReason;
  unhandledErrors: string[];
  modules: SummaryModule[];
}

const text = (e: SerializedError | { message?: string; name?: string; stack?: string }): string =>
  `${e.name && e.name !== 'Error' ? `${e.name}: ` : ''}${e.message ?? String(e)}`.split('\n').slice(0, 6).join('\n');

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>, reason: TestRunEndReason): void {
    const out = process.env.RIGHTSIZE_SUMMARY;
    if (!out) return;
    const summary: Summary = {
      reason,
      unhandledErrors: unhandledErrors.map(text),
      modules: modules.map((m) => ({
        file: m.relativeModuleId,
        project: m.project.name,
        state: m.state(),
        errors: [
          ...m.errors().map(text),
          ...[...m.children.allSuites()].flatMap((s) => s.errors().map((e) => `${s.fullName}: ${text(e)}`)),
        ],
        tests: [...m.children.allTests()].map((t) => {
          const r = t.result();
          return {
            name: t.fullName,
            state: r.state,
            mode: t.options.mode,
            ...(r.state === 'skipped' && r.note ? { note: r.note } : {}),
            errors: (r.errors ?? []).map(text),
          };
        }),
      })),
    };
    writeFileSync(out, JSON.stringify(summary, null, 1));
  }
}
