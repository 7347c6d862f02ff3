export { Store, INTERRUPTED_ERROR, RunInUseError } from './store.ts';
export { defaultDataDir, resolveDbPath, type DbPathOptions } from './paths.ts';
export { SCHEMA_VERSION } from './migrations.ts';
export type { StoredCell } from './cells.ts';
export type { StoredCellProbe } from './probe.ts';
export {
  RUN_SORTS,
  type ListRunsQuery,
  type NewRun,
  type RunDetail,
  type RunList,
  type RunPick,
  type RunSort,
  type RunSummary,
} from '../model/stored.ts';
export type { StoredUserApp } from './user-apps.ts';
export type { SavedTargetKind, StoredTarget } from './targets.ts';
