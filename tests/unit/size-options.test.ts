// `rightsize size` says every problem of its options at once, each by the option the user typed.
import { describe, expect, it } from 'vitest';
import { asOptionProblem, sizeSpecFromOptions } from '../../src-main/cli/commands/size.ts';
import { CliError } from '../../src-main/cli/exit-codes.ts';
import { validateSizeSpec } from '../../src-main/engine/auto-size/spec.ts';

const message = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(CliError);
    expect((e as CliError).exitCode).toBe(2);
    return (e as Error).message;
  }
  throw new Error('expected a usage error');
};

describe('size options', () => {
  it('lists every problem together: reading and the engine’s own ranges, by option', () => {
    const text = message(() =>
      sizeSpecFromOptions({ slo: 'p99<=50ms', rate: 'fast', cpu: '2000-250', modes: 'clustre', duration: '2', workers: 'x' }),
    );
    const lines = text.split('\n');
    expect(lines[0]).toBe('The options are not valid; nothing was started:');
    expect(text).toMatch(/- --app: give the app to size/);
    expect(text).toMatch(/- --rate: takes a number, not "fast"/);
    expect(text).toMatch(/- --slo: needs an error limit/);
    expect(text).toMatch(/- --modes: unknown launch mode "clustre"\. Did you mean "cluster"/);
    expect(text).toMatch(/- --workers: takes a range/);
    expect(text).toMatch(/- --cpu: min 2000 is above max 250/); // a range check of the engine, said as --cpu
    expect(text).toMatch(/- --duration: 2 is not a whole number of seconds from 5/);
    // No internal field names.
    expect(text).not.toMatch(/bounds\.|durationSec|cpuMillis/);
    expect(lines.length).toBe(8);
  });

  it('says the engine’s problems by the option they came from', () => {
    const v = validateSizeSpec(
      { app: 'nope', slo: { p99Ms: 50 }, rate: 10, bounds: { memoryMb: { min: 8, max: 64 } }, maxCells: 0 },
      { cores: 2, memoryMb: 4096, apps: ['hello'] },
    );
    expect(v.ok).toBe(false);
    const paths = (v.ok ? [] : v.problems).map(asOptionProblem).map((p) => p.path);
    expect(paths).toEqual(expect.arrayContaining(['--app', '--memory', '--max-cells']));
    expect(paths.every((p) => p.startsWith('--'))).toBe(true);
  });
});
