// What a verification cell ran, read back from the cell, and its settings in words: a snippet
// carries exactly what ran, said the same way in the engine's log and the snippet's comment.
import { envEntries } from './runtime-lines.ts';
import { exactCpu } from '../common/resource-labels.ts';
import type { CellConfig } from '../model/types.ts';
import { heapFlagOf, runtimeOf, type DeploySettings } from './settings.ts';

/**
 * The settings a verification cell ran, read from the cell itself (so a snippet carries exactly what ran): its
 * replicas, flags and Node.js too — the exact version it ran where recorded, else the one its matrix named.
 */
export function settingsOfCell(config: CellConfig, nodeVersion?: string | null): DeploySettings {
  const d = config.verify;
  return {
    mode: config.mode,
    workers: config.workers,
    cpuMillis: config.cpuMillis,
    cpuRequestMillis: Math.min(d?.cpuRequestMillis ?? config.cpuMillis, config.cpuMillis),
    memoryMb: config.memoryMb,
    recycleRssMb: config.recycleRssMb ?? null,
    heapMb: heapFlagOf(config.env),
    ...runtimeOf({
      replicas: config.replicas,
      node: nodeVersion ?? config.node,
      nodeFlags: config.nodeFlags,
      ...(config.envSet ? { env: config.envSet } : {}),
    }),
  };
}

/** "pm2 × 1, 0.5 CPU, 128 MB, max_memory_restart 57M, --max-old-space-size=48" ("2 containers, each …", Node.js). */
export function settingsWords(s: DeploySettings): string {
  const how = s.mode === 'single' ? 'a single process' : `${s.mode} × ${s.workers}`;
  return [
    ...(s.replicas ? [`${s.replicas} containers, each`] : []),
    how,
    exactCpu(Math.round(s.cpuMillis)),
    `${s.memoryMb} MB`,
    ...(s.recycleRssMb !== null ? [`max_memory_restart ${s.recycleRssMb}M`] : []),
    ...(s.heapMb !== null ? [`--max-old-space-size=${s.heapMb}`] : []),
    ...(s.node ? [`Node.js ${s.node}`] : []),
    ...(s.nodeFlags ? [s.nodeFlags.join(' ')] : []),
    ...envEntries(s).map(([k, v]) => `${k}=${v}`),
  ].join(', ');
}

/** "64 MB (max_memory_restart 28M, --max-old-space-size=24)". */
export function limitWords(s: DeploySettings): string {
  const extra = [
    ...(s.recycleRssMb !== null ? [`max_memory_restart ${s.recycleRssMb}M`] : []),
    ...(s.heapMb !== null ? [`--max-old-space-size=${s.heapMb}`] : []),
  ];
  return `${s.memoryMb} MB${extra.length ? ` (${extra.join(', ')})` : ''}`;
}
