// What every provider's world gives the cell runner for one dependency, made the same way everywhere,
// and the one wait for a world to be ready (removed, and said so, when it is not).
import { connectionLimit, type Dependency } from '../apps/dependencies.ts';
import type { DependencyTarget, StatsReading } from './provider.ts';

/** A dependency as a target's part: name, caps and connection limit from its definition; where and how it is read. */
export function dependencyTarget(
  dep: Dependency,
  o: {
    sharesCores: boolean;
    stats: (onReading: (r: StatsReading) => void) => Promise<() => void>;
    logTail: (lines: number) => Promise<string>;
  },
): DependencyTarget {
  const maxConnections = connectionLimit(dep);
  return {
    name: dep.name,
    image: dep.image,
    cpuMillis: dep.cpuMillis,
    memoryMb: dep.memoryMb,
    ...(maxConnections !== undefined ? { maxConnections } : {}),
    ...o,
  };
}

/** As long as a first start (initdb, init scripts) may take; a cancel ends the wait at once. */
export const DEPENDENCY_READY_MS = 120_000;

/** The world once every dependency is ready; else it is removed and the cell fails saying which was not. */
export async function readyWorld<
  W extends { ready(ms: number, signal?: AbortSignal): Promise<void>; remove(): Promise<void> },
>(world: W, signal: AbortSignal | undefined): Promise<W> {
  try {
    await world.ready(DEPENDENCY_READY_MS, signal);
  } catch (e) {
    await world.remove();
    throw new Error(`a dependency was not ready: ${(e as Error).message}`);
  }
  return world;
}
