// A request and a sequence in the words `apps show`, the run page and the HTML report use for a mix
// (src-main/mix/describe.ts requestText, which the renderer cannot run: mix/ reads responses with a
// package). tests/unit/mix-ui-words.test.ts holds the two to the same text.
import type { Capture, RequestSpec, SequenceSpec } from '../../src-main/contract/api.ts';

const captureText = (c: Capture): string =>
  'json' in c ? c.json : 'header' in c ? `header ${c.header}` : `regex /${c.regex}/`;

/** "POST /login → 200 (takes token from $.token)". */
export function requestWords(r: RequestSpec): string {
  const caps = Object.entries(r.capture ?? {}).map(([n, c]) => `${n} from ${captureText(c)}`);
  return (
    `${r.method} ${r.path}${r.status ? ` → ${r.status}` : ''}` + (caps.length ? ` (takes ${caps.join(', ')})` : '')
  );
}

/** A sequence's steps: "POST /login (takes token from $.token) → GET /me". */
export const stepsWords = (s: SequenceSpec): string => s.sequence.map(requestWords).join(' → ');

/** A sequence as the Apps form shows it: `sequence "checkout", weight 2: POST /login (takes …) → GET /me`. */
export const sequenceWords = (s: SequenceSpec): string =>
  `sequence${s.name ? ` "${s.name}"` : ''}, weight ${s.weight ?? 1}: ${stepsWords(s)}`;
