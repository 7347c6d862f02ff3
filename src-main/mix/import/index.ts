// Real traffic as a weighted request mix: a HAR saved from the browser, an nginx/Apache access log or a
// JSON-lines request log, grouped into routes with their ids drawn from the values seen.
import { keep, nothingLeft } from './filter.ts';
import { harSyntaxProblem, readHar } from './har.ts';
import { readLogLines } from './log-lines.ts';
import { toMix } from './mix.ts';
import { groupRoutes } from './routes.ts';
import { isRecord } from './text.ts';
import type { ImportOptions, ImportOutcome, ReadResult } from './types.ts';

export type { Dropped, ImportedRoute, ImportFormat, ImportOptions, ImportOutcome } from './types.ts';

const firstLineIsJsonObject = (text: string): boolean => {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  try {
    return isRecord(JSON.parse(line));
  } catch {
    return false;
  }
};

/**
 * The format from the content (the name's extension only settles .har and .jsonl/.ndjson): one JSON object
 * with a log is a HAR; lines are an access log or JSON lines. Text starting with "{" that does not parse
 * whole is a broken HAR, unless its first line is a JSON object of its own (JSON lines).
 */
function read(text: string, fileName: string): ReadResult {
  const name = fileName.toLowerCase();
  const har = name.endsWith('.har');
  if (!text.trim()) return { ok: true, format: har ? 'har' : 'combined', requests: [] };
  if (!har && (name.endsWith('.jsonl') || name.endsWith('.ndjson'))) return readLogLines(text);
  if (!har && !text.trimStart().startsWith('{')) return readLogLines(text);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return har || !firstLineIsJsonObject(text)
      ? { ok: false, problem: harSyntaxProblem(text, err) }
      : readLogLines(text);
  }
  // One JSON object on one line without a log: a JSON-lines file of one request.
  const oneLine = !text.trim().includes('\n');
  return har || (isRecord(doc) && 'log' in doc) || !oneLine ? readHar(doc) : readLogLines(text);
}

export function importRequests(text: string, fileName: string, opts: ImportOptions = {}): ImportOutcome {
  const file = read(text.replace(/^\uFEFF/, ''), fileName);
  if (!file.ok) return file;
  const kept = keep(file.requests, opts);
  const total = file.requests.length;
  if (!kept.requests.length) return { ok: false, problem: nothingLeft(kept, total) };
  const { requests, routes } = toMix(groupRoutes(kept.requests));
  return { ok: true, format: file.format, requests, routes, dropped: kept.dropped, total };
}
