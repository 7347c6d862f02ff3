// The requests of `apps add|edit` from the command line. `--request "METHOD /path"`; `--requests-from FILE`: a HAR
// file or an access log made into a weighted mix, shown route by route (on stderr, so --json stays one document)
// before the app is checked and saved. A malformed file is refused naming its line, and nothing is saved.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RequestSpec } from '../../model/requests.ts';
import { importRequests } from '../../mix/import/index.ts';
import { fmtNum } from '../../common/format.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { table } from '../format.ts';

export interface ImportOptions {
  requestsFrom?: string;
  keepStatic?: boolean;
  allHosts?: boolean;
}

/** The requests the file makes, after printing the mix made of them; a CliError (nothing saved) when it is bad. */
export function requestsFromFile(o: ImportOptions): RequestSpec[] {
  const file = o.requestsFrom!;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError(`--requests-from ${file}: ${(e as Error).message}. Nothing was saved.`, EXIT.usage);
  }
  const r = importRequests(text, path.basename(file), {
    ...(o.keepStatic ? { keepStatic: true } : {}),
    ...(o.allHosts ? { allHosts: true } : {}),
  });
  if (!r.ok) throw new CliError(`--requests-from ${file}: ${r.problem}. Nothing was saved.`, EXIT.usage);
  const total = r.routes.reduce((a, x) => a + x.weight, 0);
  const dropped = [
    r.dropped.static ? `${fmtNum(r.dropped.static)} static assets (--keep-static keeps them)` : '',
    r.dropped.otherHosts ? `${fmtNum(r.dropped.otherHosts)} to other hosts (--all-hosts keeps them)` : '',
    r.dropped.other ? `${fmtNum(r.dropped.other)} others` : '',
  ].filter(Boolean);
  process.stderr.write(
    `The mix made from ${fmtNum(r.total)} requests of ${file} (${r.format}):\n` +
      table(
        ['route', 'weight', 'share', 'example'],
        r.routes.map((x) => [x.route, fmtNum(x.weight), `${((x.weight / total) * 100).toFixed(1)} %`, x.example]),
      ) +
      `\n${dropped.length ? `Dropped ${dropped.join(', ')}.\n` : ''}` +
      'Edit it on the Apps page, or with --requests FILE (`rightsize apps --json` shows the list).\n',
  );
  return r.requests;
}

/**
 * "METHOD /path [STATUS] [BODY]", e.g. `POST /items 201 {"name":"x"}`. A body that looks like JSON
 * gets a JSON content type. Anything richer (headers): --requests with a JSON file.
 */
export function parseRequest(text: string): Record<string, unknown> {
  const m = /^\s*([A-Za-z]+)\s+(\S+)(?:\s+(\d{3}))?(?:\s+([\s\S]+))?$/.exec(text);
  if (!m)
    throw new CliError(
      `--request takes "METHOD /path [status] [body]", e.g. "POST /items 201 {\\"name\\":\\"x\\"}", got "${text}".`,
      EXIT.usage,
    );
  const [, method, p, status, body] = m;
  const json = body !== undefined && /^\s*[[{]/.test(body);
  return {
    method: method!.toUpperCase(),
    path: p,
    ...(status ? { status: Number(status) } : {}),
    ...(body !== undefined ? { body } : {}),
    ...(json ? { headers: { 'content-type': 'application/json' } } : {}),
  };
}
