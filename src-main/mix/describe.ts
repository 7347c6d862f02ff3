// A mix in words, one line per entry: what `apps ls`, `show`, the run page and the HTML report print.
import { captureText } from './capture.ts';
import { isWeighted, stepsOf, weightOf } from './routes.ts';
import { isSequence, type MixEntry, type RequestSpec } from '../model/requests.ts';

/** "GET /products/{{zipf 1 5000 1.1}} → 200 (takes token from $.token)". */
export function requestText(r: RequestSpec): string {
  const caps = Object.entries(r.capture ?? {}).map(([n, c]) => `${n} from ${captureText(c)}`);
  return (
    `${r.method} ${r.path}${r.status ? ` → ${r.status}` : ''}` + (caps.length ? ` (takes ${caps.join(', ')})` : '')
  );
}

/** Each entry: "60 % GET /products/…" with weights (its share of choices), else the request in turn. */
export function mixLines(mix: readonly MixEntry[]): string[] {
  const weighted = isWeighted(mix);
  const total = mix.reduce((a, e) => a + weightOf(e), 0);
  return mix.map((e) => {
    const what = isSequence(e)
      ? `${e.name ? `${e.name}: ` : ''}${stepsOf(e).map(requestText).join(' → ')}`
      : requestText(e);
    if (!weighted) return what;
    const pct = (weightOf(e) / total) * 100;
    return `${pct >= 10 ? pct.toFixed(0) : pct.toFixed(1)} % ${isSequence(e) ? 'sequence ' : ''}${what}`;
  });
}

/** The mix on one line: "GET /, POST /x" (in turn) or "weighted: 60 % GET /a; 40 % GET /b". */
export const mixText = (mix: readonly MixEntry[]): string =>
  isWeighted(mix) ? `weighted: ${mixLines(mix).join('; ')}` : mixLines(mix).join(', ');
