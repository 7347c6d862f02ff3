// Targets through the real CLI, against a real second Docker engine (tests/helpers/second-engine.ts,
// a dockerd in its own network namespace reached over tcp like any remote host): add it, check it
// (ok, with its node), check one nothing answers at (unreachable, exit 7), remove it, and look
// inside the SQLite file: paths are there, key material is not.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, tempDir } from '../helpers/cli.ts';
import { PACED_LOAD, requireDocker } from '../helpers/docker.ts';
import { ENGINE_SIDE, startSecondEngine, type SecondEngine } from '../helpers/second-engine.ts';

const KEY_BODY = 'MHcCAQEEIBtHc0nWm0Zl2kXq3s9cX8nV0n1u7uU9QmJ0rJm3Jt8poAoGCCqGSM49';
const KEY = `-----BEGIN EC PRIVATE KEY-----\n${KEY_BODY}\n-----END EC PRIVATE KEY-----\n`;

let second: SecondEngine;
let dir: string;
let db: string;
const rs = (...args: string[]) => cli(['--db', db, ...args]);

beforeAll(async () => {
  await requireDocker();
  second = await startSecondEngine();
  dir = tempDir('rightsize-targets-');
  db = path.join(dir, 'history.db');
});

afterAll(async () => {
  await second?.stop();
});

describe('rightsize targets', () => {
  it('adds a remote engine, checks it (its node, free), lists it, and removes it', async () => {
    const add = await rs('targets', 'add', 'second', '--docker', second.url);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain(`Added second (docker): ${second.url}.`);

    const info = (await second.client.info()) as { Name: string; NCPU: number };
    const check = await rs('targets', 'check', 'second');
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toMatch(/^second \(docker\): ok: 1 node, 1 free \(version [^)]+\)$/m);
    expect(check.stdout).toContain(`  ${info.Name}: ${info.NCPU} CPU${info.NCPU === 1 ? '' : 's'}, `);
    expect(check.stdout).toMatch(/, free$/m);
    const asJson = JSON.parse((await rs('--json', 'targets', 'check', 'second')).stdout) as { ok: boolean; nodes: { name: string; free: boolean }[] };
    expect(asJson).toMatchObject({ ok: true, nodes: [{ name: info.Name, free: true }] });

    const ls = JSON.parse((await rs('--json', 'targets', 'ls')).stdout) as { name: string; kind: string }[];
    expect(ls.map((t) => [t.name, t.kind])).toEqual([['local', 'local'], ['second', 'docker']]);

    const rm = await rs('targets', 'rm', 'second');
    expect(rm.code, rm.stderr).toBe(0);
    const after = JSON.parse((await rs('--json', 'targets', 'ls')).stdout) as { name: string }[];
    expect(after.map((t) => t.name)).toEqual(['local']);
    const gone = await rs('targets', 'check', 'second');
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain('There is no target named "second". Targets: local.');
  });

  it('runs a matrix on the remote engine with --target: image shipped there, cells measured there and recorded as such, nothing left on either engine', async () => {
    expect((await rs('targets', 'add', 'remote', '--docker', second.url)).code).toBe(0);
    const config = path.join(dir, 'm.json');
    writeFileSync(config, JSON.stringify({ apps: ['hello'], modes: ['cluster'], workers: [1, 2], cpuMillicores: [500], memoryMb: [128], load: PACED_LOAD, durationSec: 3, warmupSec: 0, settleBudgetPct: 0, verify: false }));
    const r = await rs('--json', 'run', '--config', config, '--target', 'remote');
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { runId: number; cells: { status: string; ranOn: unknown; rpsMean: number; stats: { memLimitBytes: number } }[] };
    expect(out.cells.map((c) => c.status)).toEqual(['ok', 'ok']);
    const engineName = ((await second.client.info()) as { Name: string }).Name;
    for (const c of out.cells) {
      // The load ran there too: the load agent on that engine's other cores.
      expect(c.ranOn).toEqual({ target: 'remote', kind: 'docker', loadNode: engineName });
      expect(c.rpsMean).toBeGreaterThan(100);
      expect(c.stats.memLimitBytes).toBe(128 * 2 ** 20); // the remote cgroup's cap
    }
    // The app image is now in the remote engine's own cache; no container is left there.
    expect((await second.client.listImages()).some((i) => (i.RepoTags ?? []).some((t) => t.startsWith('rightsize/app-hello:')))).toBe(true);
    expect(await second.client.listContainers({ all: true })).toEqual([]);
    // An unknown target is a usage error naming the saved ones; nothing is stored.
    const unknown = await rs('run', '--config', config, '--target', 'remot');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/There is no target named "remot"\. Did you mean "remote"\?/);
    expect((await rs('targets', 'rm', 'remote')).code).toBe(0);
  });

  it('a target that is not ready stops the run before anything starts (exit 7, nothing stored)', async () => {
    const url = `tcp://${ENGINE_SIDE}:2399`;
    expect((await rs('targets', 'add', 'gone', '--docker', url)).code).toBe(0);
    const config = path.join(dir, 'm1.json');
    writeFileSync(config, JSON.stringify({ apps: ['hello'], modes: ['cluster'], workers: [1], cpuMillicores: [500], memoryMb: [128], durationSec: 3, warmupSec: 0, settleBudgetPct: 0, verify: false }));
    const before = JSON.parse((await rs('--json', 'runs')).stdout) as { total: number };
    const r = await rs('run', '--config', config, '--target', 'gone');
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toContain(`The target "gone" is not ready: unreachable: nothing answers at ${url}`);
    expect((JSON.parse((await rs('--json', 'runs')).stdout) as { total: number }).total).toBe(before.total);
    expect((await rs('targets', 'rm', 'gone')).code).toBe(0);
  });

  it('says "unreachable" for an engine nothing answers at, with a non-zero exit', async () => {
    // The second engine's address, a port nothing listens on: refused at once.
    const url = `tcp://${ENGINE_SIDE}:2399`;
    expect((await rs('targets', 'add', 'dead', '--docker', url)).code).toBe(0);
    const check = await rs('targets', 'check', 'dead');
    expect(check.code).toBe(7);
    expect(check.stdout).toContain(`  - unreachable: nothing answers at ${url}`);
    expect((await rs('targets', 'rm', 'dead')).code).toBe(0);
  });

  it('keeps key material out of the database: only the key file path is stored; pasted keys are refused', async () => {
    const keyFile = path.join(dir, 'id_ecdsa');
    writeFileSync(keyFile, KEY, { mode: 0o600 });
    const add = await rs('targets', 'add', 'over-ssh', '--docker', 'ssh://me@build-box.invalid', '--ssh-key', keyFile);
    expect(add.code, add.stderr).toBe(0);
    const pasted = await rs('targets', 'add', 'pasted', '--docker', 'ssh://me@build-box.invalid', '--ssh-key', KEY);
    expect(pasted.code).toBe(2);
    expect(pasted.stderr).toContain('--ssh-key: is a PEM key or certificate pasted in. Rightsize never stores keys');
    // Every byte SQLite wrote (the file and its write-ahead log), read raw as grep would.
    const raw = ['', '-wal', '-shm'].map((s) => db + s).filter(existsSync).map((f) => readFileSync(f).toString('latin1')).join('');
    expect(raw).toContain(keyFile);
    expect(raw).not.toContain('BEGIN EC PRIVATE KEY');
    expect(raw).not.toContain(KEY_BODY.slice(0, 24));
  });
});
