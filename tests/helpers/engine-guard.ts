// A reaper for what the distributed tests change outside themselves (a second engine, its network namespace, the
// main engine in a Swarm): a detached shell that outlives the test process and, if that process dies before it said
// it was done (Ctrl-C during `npm test`, a killed worker), undoes the change. As the product's own reaper does for
// cells (Testcontainers' Ryuk is the model); the test's own teardown releases it first and cleans up itself.
import { spawn } from 'node:child_process';

export interface EngineGuard {
  /** The owner cleaned up itself: the guard goes without running anything. */
  release(): void;
}

/** Runs `cleanup` (sh) once `owner` (default: this process) has died, unless released first. */
export function guardEngine(what: string, cleanup: string, owner = process.pid): EngineGuard {
  const script = `while kill -0 ${owner} 2>/dev/null; do sleep 0.5; done\n${cleanup}\n`;
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore', env: { ...process.env, GUARDED: what } });
  child.unref();
  let released = false;
  return {
    release() {
      if (released || child.pid === undefined) return;
      released = true;
      try {
        process.kill(-child.pid, 'SIGKILL'); // its sleep too: nothing of it stays
      } catch {
        /* already gone */
      }
    },
  };
}
