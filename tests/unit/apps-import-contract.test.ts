// apps.importRequests through the contract (dispatch → the service's handler → mix/import): the importer's
// own result, a file it cannot read as its problem naming the line (not an error: nothing is saved either way),
// and input refused at the boundary (oversize text, a misspelt option). A real store; no Docker.
import { readFileSync } from 'node:fs';
import path, { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_IMPORT_CHARS } from '../../src-main/contract/api.ts';
import type { EngineInfo } from '../../src-main/docker/client.ts';
import { importRequests } from '../../src-main/mix/import/index.ts';
import { Lab } from '../../src-main/service/lab.ts';
import { Store } from '../../src-main/store/index.ts';
import { dispatch } from '../../src-main/transports/dispatch.ts';
import { tempDir } from '../helpers/cli.ts';

const DIR = join(import.meta.dirname, '../fixtures/import');
const fixture = (name: string): string => readFileSync(join(DIR, name), 'utf8');

describe('apps.importRequests through the contract', () => {
  let lab: Lab;
  let store: Store;
  beforeEach(async () => {
    store = Store.open(path.join(tempDir('rightsize-apps-import-'), 'r.db'));
    lab = await Lab.open({
      store,
      startup: {
        interruptedRuns: [],
        sweptContainers: [],
        engine: { version: '27.0.0', cpus: 1, memoryBytes: 2 ** 32 } as EngineInfo,
      },
      recheckMs: { down: 60_000, up: 60_000 },
    });
  });
  afterEach(async () => lab.close());

  it('gives the importer’s result, with the options asked, and saves nothing', async () => {
    const har = fixture('shop.har');
    const r = await dispatch(lab, 'apps.importRequests', { text: har, fileName: 'shop.har' });
    expect(r).toEqual({ ok: true, value: importRequests(har, 'shop.har') });
    expect((r as { value: { ok: boolean } }).value.ok).toBe(true);
    const all = await dispatch(lab, 'apps.importRequests', {
      text: har,
      fileName: 'shop.har',
      keepStatic: true,
      allHosts: true,
    });
    expect(all).toEqual({ ok: true, value: importRequests(har, 'shop.har', { keepStatic: true, allHosts: true }) });
    expect(all).not.toEqual(r);
    expect((await lab.handlers['apps.list']({})).every((a) => a.builtIn)).toBe(true); // nothing saved
  });

  it('answers a file it cannot read with its problem, naming the line', async () => {
    const r = await dispatch(lab, 'apps.importRequests', { text: fixture('malformed.log'), fileName: 'access.log' });
    expect(r).toMatchObject({ ok: true, value: { ok: false } });
    const { problem } = (r as { value: { problem: string } }).value;
    expect(problem).toMatch(/^line 3: /);
    expect(problem).toBe((importRequests(fixture('malformed.log'), 'access.log') as { problem: string }).problem);
  });

  it('refuses text over the cap, and a misspelt option, before the importer reads anything', async () => {
    const big = await dispatch(lab, 'apps.importRequests', {
      text: 'x'.repeat(MAX_IMPORT_CHARS + 1),
      fileName: 'big.log',
    });
    expect(big).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT', fields: [{ path: 'text' }] } });
    expect((big as { error: { message: string } }).error.message).toContain('the file is over 20 MB');
    const typo = await dispatch(lab, 'apps.importRequests', { text: '', fileName: 'a.har', keepStatics: true });
    expect(typo).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(await dispatch(lab, 'apps.importRequests', { fileName: 'a.har' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT', fields: [{ path: 'text' }] },
    });
  });
});
