// Taking a value from a response for the next steps of a sequence: a JSON path, a header or a regex.
import { JSONPath } from 'jsonpath-plus';
import type { Capture } from '../model/requests.ts';

/** How the capture is written, for reasons and the run page: `$.token`, `header Location`, `regex /id=(\d+)/`. */
export function captureText(c: Capture): string {
  return 'json' in c ? c.json : 'header' in c ? `header ${c.header}` : `regex /${c.regex}/`;
}

/** What is wrong with a capture as written, if anything. */
export function captureProblem(c: Capture): string | undefined {
  if ('json' in c) return c.json.startsWith('$') ? undefined : `the JSON path "${c.json}" starts with $, e.g. $.token`;
  if ('header' in c)
    return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(c.header) ? undefined : `"${c.header}" is no header name`;
  try {
    new RegExp(c.regex);
    return undefined;
  } catch (e) {
    return `the regex /${c.regex}/ does not compile: ${(e as Error).message}`;
  }
}

/** A header's value from autocannon's raw list [name, value, name, value…], its name in any case. */
function header(raw: readonly string[], name: string): string | undefined {
  const want = name.toLowerCase();
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === want) return raw[i + 1];
  return undefined;
}

/** A compiled capture: the value it takes from a response, or undefined when the response does not have it. */
export type Capturer = (body: string, rawHeaders: readonly string[], json: () => unknown) => string | undefined;

export function compileCapture(c: Capture): Capturer {
  if ('header' in c) return (_b, raw) => header(raw, c.header);
  if ('regex' in c) {
    const re = new RegExp(c.regex);
    return (body) => {
      const m = re.exec(body);
      return m ? (m[1] ?? m[0]) : undefined;
    };
  }
  return (_b, _h, json) => {
    const doc = json();
    if (doc === undefined) return undefined;
    const v: unknown = JSONPath({ path: c.json, json: doc as object, wrap: false });
    const one = Array.isArray(v) && c.json.includes('[*]') ? v[0] : v;
    if (one === undefined || one === null) return undefined;
    return typeof one === 'object' ? JSON.stringify(one) : String(one);
  };
}
