// Ctrl-C during `npm test` must not leave the main engine in a Swarm, nor a second engine and its network namespace
// (tests/helpers/engine-guard.ts): a process that formed them is SIGKILLed, and within a bound everything is as found.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { mainEngineState, secondEngineUnsupported } from '../helpers/second-engine.ts';
import { requireDocker } from '../helpers/docker.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The guard polls its owner every half second; leaving a Swarm and stopping dockerd take a few seconds more. */
const UNDONE_WITHIN_MS = 30_000;

beforeAll(async () => {
  await requireDocker();
});

describe('the distributed tests leave nothing behind when their process dies', () => {
  it('SIGKILL after forming a two-node Swarm: the main engine leaves it, the second engine and its namespace go', async () => {
    expect(await secondEngineUnsupported()).toBeNull(); // as the distributed tests, which this guards, need
    const before = await mainEngineState();
    expect(before.swarm).toBe('inactive');
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'tests/helpers/swarm-maker.ts')], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (b: Buffer) => b.toString().includes('ready') && resolve());
      child.on('exit', (code) => reject(new Error(`the Swarm maker exited with ${code} before it was ready`)));
    });
    expect((await mainEngineState()).swarm).toBe('active');
    child.kill('SIGKILL');
    const t0 = Date.now();
    const namespaces = (): string => execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
    let state = await mainEngineState();
    while (Date.now() - t0 < UNDONE_WITHIN_MS && (state.swarm !== 'inactive' || namespaces().includes('rightsize-e2') || existsSync('/run/rightsize-e2.pid'))) {
      await new Promise((r) => setTimeout(r, 250));
      state = await mainEngineState();
    }
    console.log(`undone ${Date.now() - t0} ms after the SIGKILL`);
    expect(state.swarm).toBe('inactive');
    expect(namespaces()).not.toContain('rightsize-e2');
    expect(existsSync('/run/rightsize-e2.pid')).toBe(false);
    expect(state.docker0).toBe(before.docker0);
    // Swarm's own networks only: the other lane's cells make and remove theirs meanwhile.
    const swarmNets = (ns: string[]): string[] => ns.filter((n) => n === 'docker_gwbridge' || n === 'ingress');
    expect(swarmNets(state.networks)).toEqual(swarmNets(before.networks));
  });
});
