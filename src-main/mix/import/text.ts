// Small helpers for reading text: quoting a bad line, and finding the line of a JSON.parse error.

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A line quoted for a message, cut to about 60 characters. */
export const excerpt = (s: string, max = 60): string => `"${s.length > max ? `${s.slice(0, max)}…` : s}"`;

/** The 1-based line of character `position`. */
export function lineAt(text: string, position: number): number {
  let line = 1;
  for (let i = 0; i < Math.min(position, text.length); i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** V8 quotes up to this many characters either side of an unexpected token instead of giving its position. */
const CONTEXT = 10;

/**
 * Where JSON.parse stopped, as a character index: "at position N" (Node 20), "(line L column C)" (Node 22), or,
 * for an unexpected token, the text V8 quotes around it, found again in the source; the end for the end of input.
 */
export function jsonErrorAt(text: string, message: string): number {
  const lc = /\(line (\d+) column (\d+)\)/.exec(message);
  if (lc) {
    let start = 0;
    for (let line = 1; line < Number(lc[1]) && start >= 0; line++) start = text.indexOf('\n', start) + 1;
    return Math.max(0, start) + Number(lc[2]) - 1;
  }
  const pos = /at position (\d+)/.exec(message);
  if (pos) return Number(pos[1]);
  const token = /^Unexpected token '([\s\S]+?)', (\.\.\.)?"([\s\S]*)"(\.\.\.)? is not valid JSON$/.exec(message);
  if (token) {
    const [tok, before, context, after] = [token[1]!, token[2], token[3]!, token[4]];
    if (!before) return after ? context.length - CONTEXT : Math.max(0, context.indexOf(tok));
    const start = text.indexOf(context);
    if (start >= 0) return start + CONTEXT;
  }
  return text.trimEnd().length - 1;
}

/** The line of `position` quoted for a message: from a little before it when the line is long (minified JSON). */
export function excerptAt(text: string, position: number): string {
  const start = text.lastIndexOf('\n', position - 1) + 1;
  const end = text.indexOf('\n', position);
  const line = text.slice(start, end < 0 ? text.length : end).trimEnd();
  const column = position - start;
  const from = line.length > 60 && column > 40 ? column - 20 : 0;
  return from ? `"…${excerpt(line.slice(from)).slice(1)}` : excerpt(line.trim());
}

/** The message of a JSON.parse error without its position, which the caller says as a line. */
export const jsonErrorWhat = (message: string): string =>
  message
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/\s*(in JSON )?at position \d+/, '')
    .replace(/, (\.\.\.)?"[\s\S]*"(\.\.\.)? is not valid JSON$/, '');
