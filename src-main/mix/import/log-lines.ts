// Line-by-line logs: each line an access-log line (combined/common) or a JSON record; empty lines skipped.
// One bad line refuses the file, naming it: a log that does not read as expected would give a wrong mix.
import { parseAccessLine } from './access-log.ts';
import { jsonRequest } from './json-lines.ts';
import { excerpt, isRecord, jsonErrorWhat } from './text.ts';
import type { ReadResult, SeenRequest } from './types.ts';

type LineRead = { request: SeenRequest; json: boolean } | { problem: string };

function readLine(line: string): LineRead {
  if (line.startsWith('{')) {
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch (err) {
      return { problem: `not valid JSON (${jsonErrorWhat(err instanceof Error ? err.message : String(err))})` };
    }
    const request = isRecord(rec) ? jsonRequest(rec) : undefined;
    return request ? { request, json: true } : { problem: 'JSON with a method but no path, or a path but no method' };
  }
  const request = parseAccessLine(line);
  return request ? { request, json: false } : { problem: 'not a combined log line nor JSON with method and path' };
}

export function readLogLines(text: string): ReadResult {
  const requests: SeenRequest[] = [];
  let json = 0;
  let first: string | undefined;
  let bad = 0;
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line) continue;
    const read = readLine(line);
    if ('problem' in read) {
      bad++;
      first ??= `line ${i + 1}: ${read.problem}: ${excerpt(line)}`;
      continue;
    }
    requests.push(read.request);
    if (read.json) json++;
  }
  if (first !== undefined)
    return { ok: false, problem: bad > 1 ? `${first} (and ${bad - 1} more bad line${bad > 2 ? 's' : ''})` : first };
  return { ok: true, format: json > requests.length / 2 ? 'jsonl' : 'combined', requests };
}
