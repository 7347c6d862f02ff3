import { describe, expect, it } from 'vitest';
import { closest, schemaKeysAt } from '../../src-main/common/issues.ts';
import { MatrixSchema, validateMatrix, type HostLimits } from '../../src-main/engine/matrix.ts';
import { findPreset, listPresets, unknownPresetMessage } from '../../src-main/presets/presets.ts';

// A config file written by hand: every problem at once, in words, naming the field, and a
// suggestion for what was probably meant.
const host: HostLimits = { cores: 2, memoryMb: 4096, apps: ['hello', 'json', 'static'] };
const base = { apps: ['hello'], modes: ['cluster'], workers: [1, 2], cpuMillicores: [500, 1000], memoryMb: [256] };

function problems(input: unknown): string[] {
  const v = validateMatrix(input, host);
  if (v.ok) throw new Error('expected problems');
  return v.problems.map((p) => `${p.path}: ${p.message}`);
}

describe('a config file with mistakes', () => {
  it('a missing cpuMillicores says what to give, in words, and does not hide the other problems', () => {
    const { cpuMillicores: _c, ...rest } = base;
    const list = problems({ ...rest, workers: [0], memoryMb: [8], cpu: [1000], repetition: 3 });
    expect(list).toEqual(
      expect.arrayContaining([
        'cpuMillicores: is missing: give a list of CPU caps in millicores (1000 = one core), e.g. [500, 1000].',
        'cpu: is not a field here. Did you mean "cpuMillicores"?',
        'repetition: is not a field here. Did you mean "repetitions"?',
        'workers: 0 is not a worker count (whole number ≥ 1)',
        'memoryMb: 8 MB is below the minimum of 32 MB',
      ]),
    );
    expect(list).toHaveLength(5);
    expect(list.join('\n')).not.toMatch(/Invalid input|expected array|received undefined/);
  });

  it.each([
    [{ ...base, Workers: [1] }, 'Workers: is not a field here. Did you mean "workers"?'],
    [{ ...base, durationSecs: 5 }, 'durationSecs: is not a field here. Did you mean "durationSec"?'],
    [{ ...base, memory: [256] }, 'memory: is not a field here. Did you mean "memoryMb"?'],
    [{ ...base, load: { model: 'closed', connection: [5] } }, 'load.connection: is not a field here. Did you mean "connections"?'],
    [{ ...base, load: { model: 'rate', rates: [100], conections: 5 } }, 'load.conections: is not a field here. Did you mean "connections"?'],
    [{ ...base, zzzzzz: 1 }, expect.stringMatching(/^zzzzzz: is not a field here\. Fields here: name, apps, cpuMillicores, /)],
    [{ ...base, cpuMillicores: 500 }, 'cpuMillicores: should be a list of CPU caps in millicores (1000 = one core), e.g. [500, 1000], not the number 500.'],
    [{ ...base, memoryMb: ['256'] }, 'memoryMb.0: should be a number, not the text "256".'],
    [{ ...base, apps: 'hello' }, 'apps: should be a list of app names, e.g. ["hello"], not the text "hello".'],
    [{ ...base, load: { connections: [10] } }, 'load.model: is missing: give "closed" (a fixed number of connections) or "rate" (requests per second).'],
    [{ ...base, load: { model: 'open', connections: [10] } }, 'load.model: "open" is not one of "closed", "rate".'],
    [{ ...base, load: { model: 'rates', rates: [10] } }, 'load.model: "rates" is not one of "closed", "rate". Did you mean "rate"?'],
    [{ ...base, order: 'random' }, 'order: "random" is not one of "fixed", "shuffle".'],
    [{ ...base, env: { UV_THREADPOOL_SIZE: 4 } }, 'env.UV_THREADPOOL_SIZE: should be text (in quotes), not the number 4.'],
    [{ ...base, requestSets: [{ name: '', requests: [] }] }, 'requestSets.0.name: must not be empty.'],
    [{ ...base, requestSets: [{ name: 'a', requests: [] }] }, 'requestSets.0.requests: needs at least one item.'],
    [{ ...base, confirmLarge: 'yes' }, 'confirmLarge: should be true or false, not the text "yes".'],
    [{ ...base, durationSec: '10' }, 'durationSec: should be the measured seconds per cell, a whole number, e.g. 10, not the text "10".'],
    [[base], '(matrix): should be an object ({"apps": […], "cpuMillicores": […], "memoryMb": […], "workers": […], "modes": […]}), not a list (1 item).'],
  ])('%j → %s', (input, message) => {
    expect(problems(input)).toContainEqual(message);
  });

  it('a value of the wrong type in one field still lets the other fields be range-checked', () => {
    const list = problems({ ...base, memoryMb: 'lots', cpuMillicores: [64_000], durationSec: 0 });
    expect(list).toContain("cpuMillicores: 64000m is more than this host's 2 cores (2000m)");
    expect(list).toContain('durationSec: 0 is not a whole number of seconds from 1 to 3600');
    expect(list.some((l) => l.startsWith('memoryMb: should be a list'))).toBe(true);
  });

  it('a huge text is shortened in the message', () => {
    const [line] = problems({ ...base, apps: 'x'.repeat(100_000) });
    expect(line!.length).toBeLessThan(200);
  });
});

describe('did you mean', () => {
  it.each([
    ['cpu', 'cpuMillicores'],
    ['repetition', 'repetitions'],
    ['Quick', 'quick'],
    ['quik', 'quick'],
    ['conections', 'connections'],
    ['launch-mode', 'launch-modes'],
  ])('%s → %s', (word, want) => {
    expect(closest(word, ['quick', 'launch-modes', 'cpuMillicores', 'repetitions', 'connections', 'name'])).toBe(want);
  });

  it('suggests nothing when nothing is close', () => {
    expect(closest('zzzzzz', ['quick', 'apps', 'name'])).toBeUndefined();
    expect(closest('x', ['apps', 'name'])).toBeUndefined();
  });

  it('knows the fields of nested objects and of every load model', () => {
    expect(schemaKeysAt(MatrixSchema, ['load']).sort()).toEqual(['connections', 'model', 'rates', 'streams', 'threads', 'tlsResume']);
    expect(schemaKeysAt(MatrixSchema, ['requestSets', 0]).sort()).toEqual(['name', 'requests']);
  });
});

describe('preset names', () => {
  it('match in any case', () => {
    expect(findPreset('Quick')?.name).toBe('quick');
    expect(findPreset(' QUICK ')?.name).toBe('quick');
  });

  it('a misspelt one gets a suggestion and the list', () => {
    const names = listPresets().map((p) => p.name);
    expect(unknownPresetMessage('quik')).toBe(`Unknown preset "quik". Did you mean "quick"? Presets: ${names.join(', ')}.`);
    expect(unknownPresetMessage('zzz')).toBe(`Unknown preset "zzz". Presets: ${names.join(', ')}.`);
  });

  it('every preset is a valid matrix under the strict schema', () => {
    for (const p of listPresets()) expect(MatrixSchema.safeParse(p.matrix).success, p.name).toBe(true);
  });
});
