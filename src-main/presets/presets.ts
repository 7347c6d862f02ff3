import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { resourcesDir } from '../util/paths.ts';

export const PresetSchema = z.object({
  name: z.string(),
  title: z.string(),
  description: z.string(),
  /** The seed experiment (../shared/seeds) this preset reproduces, if any. */
  seed: z.string().nullable(),
  matrix: z.record(z.string(), z.unknown()),
});
export type Preset = z.infer<typeof PresetSchema>;

/** resources/presets/*.json, sorted with `quick` first (the one a newcomer should try). */
export function listPresets(): Preset[] {
  const dir = path.join(resourcesDir(), 'presets');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => PresetSchema.parse(JSON.parse(readFileSync(path.join(dir, f), 'utf8'))))
    .sort((a, b) => (a.name === 'quick' ? -1 : b.name === 'quick' ? 1 : a.name.localeCompare(b.name)));
}

export function findPreset(name: string): Preset | undefined {
  return listPresets().find((p) => p.name === name);
}
