// The CSV files a mix's `{{csv FILE COLUMN}}` templates read, found from the app's folder and read
// column by column, once per cell: the load threads get the values, not the files.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { MixEntry } from '../model/requests.ts';
import type { CsvTables } from '../mix/template.ts';
import { csvColumnsOf } from './request-schema.ts';
import { loadOnUse } from '../common/load-on-use.ts';

/** Where a mix's file is: relative to the app's folder (or this directory for an image app), or absolute. */
export const mixFilePath = (file: string, dir: string): string => path.resolve(dir || process.cwd(), file);

/** The asked columns of every file, or what is wrong ("ids.csv: no column "sku"; it has id, name"). */
export function readMixData(mix: readonly MixEntry[], dir: string): { csv: CsvTables } | { problems: string[] } {
  const csv: CsvTables = {};
  const problems: string[] = [];
  for (const [file, cols] of csvColumnsOf(mix)) {
    let rows: Record<string, string>[];
    try {
      const { parse } = loadOnUse('csv-parse/sync') as typeof import('csv-parse/sync');
      rows = parse(readFileSync(mixFilePath(file, dir), 'utf8'), { columns: true, skip_empty_lines: true, trim: true });
    } catch (e) {
      const err = e as NodeJS.ErrnoException & { lines?: number };
      problems.push(
        err.code === 'ENOENT'
          ? `${file}: no such file (looked in ${path.dirname(mixFilePath(file, dir))})`
          : `${file}: ${err.message}`,
      );
      continue;
    }
    const have = rows.length ? Object.keys(rows[0]!) : [];
    if (!rows.length) problems.push(`${file}: no rows under its header line`);
    for (const col of cols)
      if (rows.length && !have.includes(col))
        problems.push(`${file}: no column "${col}"; it has ${have.map((h) => `"${h}"`).join(', ')}`);
      else (csv[file] ??= {})[col] = rows.map((r) => r[col] ?? '');
  }
  return problems.length ? { problems } : { csv };
}
