import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { QUIET, SHARED_A, SHARED_B } from '../helpers/lanes.ts';

const DIR = path.resolve(import.meta.dirname, '../integration');
const files = readdirSync(DIR).filter((f) => f.endsWith('.test.ts')).map((f) => f.replace(/\.test\.ts$/, ''));

describe('the integration lanes (tests/helpers/lanes.ts)', () => {
  it('put every integration file in exactly one lane, and name no file that is gone', () => {
    const listed: string[] = [...SHARED_A, ...SHARED_B, ...QUIET];
    expect(listed.filter((n, i) => listed.indexOf(n) !== i), 'in two lanes').toEqual([]);
    expect(files.filter((f) => !listed.includes(f)), 'in no lane: add it to SHARED_A, SHARED_B or QUIET').toEqual([]);
    expect(listed.filter((n) => !files.includes(n)), 'listed, but no such file').toEqual([]);
  });
});
