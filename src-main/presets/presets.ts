import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { didYouMean } from '../common/issues.ts';
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

/** A preset by name, in any case (`Quick` is `quick`). */
export function findPreset(name: string): Preset | undefined {
  const want = name.trim().toLowerCase();
  return listPresets().find((p) => p.name.toLowerCase() === want);
}

/**
 * Why `name` is not a preset, with the likeliest intended one: `Unknown preset "quik". Did you mean "quick"? Presets:
 * …`.
 */
export function unknownPresetMessage(name: string): string {
  const names = listPresets().map((p) => p.name);
  return `Unknown preset "${name}".${didYouMean(name.trim(), names)} Presets: ${names.join(', ')}.`;
}
