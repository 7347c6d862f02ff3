// HAR files (DevTools "Save all as HAR"): one JSON document whose log.entries are the requests the browser
// made, each with its absolute URL, headers, body and the status it got.
import { excerpt, excerptAt, isRecord, jsonErrorAt, jsonErrorWhat, lineAt } from './text.ts';
import type { ReadResult, SeenRequest } from './types.ts';

/** What a HAR that does not parse says: the line where JSON.parse stopped, and that line. */
export function harSyntaxProblem(text: string, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const at = Math.max(0, jsonErrorAt(text, message));
  return `line ${lineAt(text, at)}: the HAR is not valid JSON (${jsonErrorWhat(message)}): ${excerptAt(text, at)}`;
}

const headerValue = (headers: unknown, name: string): string | undefined => {
  if (!Array.isArray(headers)) return undefined;
  const h = headers.find((x) => isRecord(x) && typeof x.name === 'string' && x.name.toLowerCase() === name);
  return isRecord(h) && typeof h.value === 'string' ? h.value : undefined;
};

/** The body: its text, or (older exports of forms) its params joined as a urlencoded form. */
function bodyOf(postData: unknown): string | undefined {
  if (!isRecord(postData)) return undefined;
  if (typeof postData.text === 'string' && postData.text !== '') return postData.text;
  if (!Array.isArray(postData.params) || !postData.params.length) return undefined;
  return postData.params
    .filter(isRecord)
    .map((p) => `${encodeURIComponent(String(p.name ?? ''))}=${encodeURIComponent(String(p.value ?? ''))}`)
    .join('&');
}

/** One entry, or what is wrong with it. */
function entryRequest(entry: unknown, i: number): SeenRequest | string {
  const req = isRecord(entry) ? entry.request : undefined;
  if (!isRecord(entry) || !isRecord(req) || typeof req.method !== 'string' || typeof req.url !== 'string')
    return `log.entries[${i}] (request ${i + 1}) has no request with a method and a url`;
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return `log.entries[${i}] (request ${i + 1}): request.url ${excerpt(req.url)} is not a URL`;
  }
  const response = entry.response;
  const status = isRecord(response) && typeof response.status === 'number' ? response.status : 0;
  const body = bodyOf(req.postData);
  const mime = isRecord(req.postData) && typeof req.postData.mimeType === 'string' ? req.postData.mimeType : '';
  const seen: SeenRequest = {
    method: req.method.toUpperCase(),
    target: `${url.pathname}${url.search}`,
    host: url.host.toLowerCase(),
    ...(status > 0 ? { status } : {}),
    ...(body !== undefined ? { body } : {}),
    ...(typeof entry._resourceType === 'string' ? { resourceType: entry._resourceType.toLowerCase() } : {}),
  };
  const contentType = body !== undefined ? (headerValue(req.headers, 'content-type') ?? mime) : '';
  if (contentType) seen.contentType = contentType;
  // Not the app's work: other schemes (data:, blob:, ws:, extensions) and answers from the browser's cache.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') seen.notServed = `a ${url.protocol} URL`;
  else if (typeof entry._fromCache === 'string') seen.notServed = 'answered from the browser cache';
  return seen;
}

/** The requests of a HAR document, already parsed from JSON. */
export function readHar(doc: unknown): ReadResult {
  const log = isRecord(doc) ? doc.log : undefined;
  if (!isRecord(log) || !Array.isArray(log.entries))
    return {
      ok: false,
      problem:
        'not a HAR: a HAR is a JSON object with a log.entries array (DevTools, Network tab: "Save all as HAR"); ' +
        `this JSON has ${isRecord(log) ? 'a log without an entries array' : 'no log object'}`,
    };
  const requests: SeenRequest[] = [];
  for (const [i, entry] of log.entries.entries()) {
    const r = entryRequest(entry, i);
    if (typeof r === 'string') return { ok: false, problem: r };
    requests.push(r);
  }
  return { ok: true, format: 'har', requests };
}
