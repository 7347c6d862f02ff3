// Start arguments as one line of text and back (the ecosystem file's "args" string, the UI's field).
// Pure: the renderer has it through contract/present.ts.

/** Splits a command line the way a shell would for plain words and quotes (no variables, no globs). */
export function splitArgs(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: '"' | "'" | null = null;
  let started = false;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = null;
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) out.push(cur);
      cur = '';
      started = false;
    } else {
      cur += ch;
      started = true;
    }
  }
  if (quote) throw new Error(`unclosed ${quote} in arguments: ${line}`);
  if (started) out.push(cur);
  return out;
}

/** The inverse of splitArgs: arguments with spaces or quotes are quoted so they split back the same. */
export function joinArgs(args: string[]): string {
  return args.map((a) => (a === '' || /[\s"']/.test(a) ? (a.includes("'") ? `"${a}"` : `'${a}'`) : a)).join(' ');
}
