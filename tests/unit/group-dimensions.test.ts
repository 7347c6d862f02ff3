// Configurations with replicas, a Node.js version or flags: their keys (old configurations keep
// theirs, byte for byte), their scopes (equal TOTAL resources compete), their labels and summaries.
import { describe, expect, it } from 'vitest';
import { configurationKey, groupCells, sameBut, scopeKey } from '../../src-main/analysis/decide/group.ts';
import { cellLabel } from '../../src-main/common/labels.ts';
import type { CellConfig } from '../../src-main/model/types.ts';
import { cell, run } from '../helpers/run-fixture.ts';

const config = (over: Partial<CellConfig> = {}): CellConfig => ({
  index: 0,
  repetition: 0,
  app: 'json',
  mode: 'cluster',
  workers: 2,
  cpuMillis: 1000,
  memoryMb: 256,
  load: { model: 'closed', connections: 20 },
  durationSec: 10,
  warmupSec: 2,
  env: {},
  ...over,
});

describe('configuration and scope keys', () => {
  it('an old configuration keeps its key and scope exactly (runs stored before the new dimensions)', () => {
    expect(configurationKey(config())).toBe('["json",null,"cluster",2,1000,256,"closed",20]');
    expect(scopeKey(config())).toBe('["json",null,"closed",20,1000,256]');
    // A replica count of 1 and an empty flag set are the old default: the same key.
    expect(configurationKey(config({ replicas: 1, nodeFlags: [] }))).toBe(configurationKey(config()));
  });

  it('replicas, a Node.js version and flags make their own configurations', () => {
    const keys = [
      config(),
      config({ replicas: 2 }),
      config({ node: '22' }),
      config({ node: '22.11.0' }),
      config({ nodeFlags: ['--max-semi-space-size=32'] }),
      config({ replicas: 2, node: '22', nodeFlags: ['--jitless'] }),
    ].map(configurationKey);
    expect(new Set(keys).size).toBe(6);
    expect(keys[5]).toBe(
      '["json",null,"cluster",2,1000,256,"closed",20,{"replicas":2,"node":"22","nodeFlags":["--jitless"]}]',
    );
  });

  it('a scope holds equal total CPU and memory: 1 × 2000m / 512 MB competes with 2 × 1000m / 256 MB', () => {
    const one = config({ cpuMillis: 2000, memoryMb: 512 });
    const two = config({ replicas: 2 });
    expect(scopeKey(one)).toBe(scopeKey(two));
    expect(scopeKey(two)).toBe('["json",null,"closed",20,2000,512]');
    // Versions and flags differ within a scope, as modes and workers do.
    expect(scopeKey(config({ node: '20', nodeFlags: ['--jitless'] }))).toBe(scopeKey(config()));
    // One replica of 1000m is not the same total as two.
    expect(scopeKey(config())).not.toBe(scopeKey(two));
  });
});

describe('labels and summaries', () => {
  it('a cell’s label names its replicas, Node.js version and flags only when it has them', () => {
    expect(cellLabel(config())).toBe('json cluster×2 1000m/256MB c20');
    expect(cellLabel(config({ replicas: 2, node: '22', nodeFlags: ['--max-semi-space-size=32'] }))).toBe(
      'json cluster×2 2 × 1000m/256MB c20 Node 22 --max-semi-space-size=32',
    );
  });

  it('groups repetitions per configuration and carries the new fields, with the exact versions run', () => {
    const a = cell({ workers: 1, rps: 900 });
    a.config = { ...a.config, replicas: 2, node: '22' };
    const b = cell({ workers: 1, rps: 950 });
    b.config = { ...b.config, replicas: 2, node: '22' };
    Object.assign(b, { nodeVersion: '22.11.0' });
    const c = cell({ workers: 1, cpu: 2000, mem: 512, rps: 1000 });
    const { configurations } = groupCells(run([a, b, c]).cells);
    expect(configurations).toHaveLength(2);
    const single = configurations.find((x) => x.cpuMillis === 2000)!;
    const pair = configurations.find((x) => x.cpuMillis === 1000)!;
    expect(single).not.toHaveProperty('replicas');
    expect(single).not.toHaveProperty('node');
    expect(pair).toMatchObject({ replicas: 2, node: '22', nodeVersions: ['22.11.0'], n: 2 });
    expect(pair!.label).toBe('hello cluster×1 2 × 1000m/256MB c20 Node 22');
    expect(pair!.scopeKey).toBe(single!.scopeKey);
  });

  it('sameBut reads the caps dimension only between the same replicas, version and flags', () => {
    const [x, y, z] = groupCells(
      run([
        cell({ mem: 256 }),
        cell({ mem: 512 }),
        Object.assign(cell({ mem: 512 }), { config: { ...cell({ mem: 512 }).config, node: '22' } }),
      ]).cells,
    ).configurations;
    expect(sameBut('memoryMb', x!, y!)).toBe(true);
    expect(sameBut('memoryMb', x!, z!)).toBe(false);
  });
});
