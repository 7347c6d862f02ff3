// The HTML report's style sheet: one block in the document's head (no external resource), readable
// on a screen and printable (tables shrink, sections do not break inside a row).

/** The style sheet, one rule per line. */
export const CSS = [
  '',
  ':root { color-scheme: light; }',
  'body { margin: 0; background: #fff; color: #111; ' +
    'font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }',
  'main { max-width: 1100px; margin: 0 auto; padding: 24px 28px 48px; }',
  'h1 { font-size: 24px; margin: 0 0 4px; }',
  'h2 { font-size: 18px; margin: 32px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }',
  'h3 { font-size: 15px; margin: 20px 0 6px; }',
  '.meta { color: #555; margin: 0; }',
  '.answer { background: #f4f8fc; border-left: 4px solid #0072B2; padding: 10px 16px 10px 32px; margin: 12px 0; }',
  '.answer li { margin: 3px 0; }',
  'details.how { margin: 8px 0 0; } details.how > summary { cursor: pointer; font-weight: 600; color: #0b4f7a; }',
  'details.how p, .reasoning li { margin: 4px 0; }',
  '.answer-charts { margin: 8px 0; }',
  '.headline { font-size: 1.1em; margin: 12px 0; }',
  '.state { display: inline-block; border-radius: 4px; padding: 1px 8px; font-weight: 600; color: #fff; }',
  '.state-confident { background: #007a4d; } .state-equivalent { background: #0072B2; } ' +
    '.state-undecided { background: #b35900; }',
  'table { border-collapse: collapse; width: 100%; margin: 8px 0; font-size: 12.5px; }',
  'th, td { border: 1px solid #ddd; padding: 4px 6px; text-align: left; vertical-align: top; }',
  'th { background: #f3f3f3; font-weight: 600; }',
  'td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }',
  'td.num, .value, .nowrap { white-space: nowrap; font-variant-numeric: tabular-nums; }',
  'tr.excluded td { color: #888; background: #fbf5f5; }',
  'table.cells td { white-space: nowrap; }',
  'table.cells tr.note td { white-space: normal; color: #444; font-size: 11.5px; border-top: none; ' +
    'padding-left: 24px; }',
  '.flag { border-radius: 3px; padding: 0 4px; margin-right: 2px; background: #fff1e0; color: #7a3e00; ' +
    'font-size: 11.5px; -webkit-box-decoration-break: clone; box-decoration-break: clone; }',
  '.charts { display: flex; flex-wrap: wrap; gap: 12px; }',
  'figure { margin: 0; min-width: 0; max-width: 100%; break-inside: avoid; page-break-inside: avoid; }',
  'svg { box-sizing: border-box; max-width: 100%; height: auto; border: 1px solid #eee; }',
  'pre { background: #f7f7f7; border: 1px solid #e5e5e5; padding: 10px; overflow-x: auto; font-size: 12px; }',
  '.method li { margin: 4px 0; }',
  '.muted { color: #666; }',
  '@page { margin: 12mm; }',
  '@media print {',
  '  main { max-width: none; padding: 0; }',
  '  h2 { break-after: avoid; page-break-after: avoid; }',
  '  table { font-size: 10.5px; }',
  '  table.cells { font-size: 9px; }',
  '  table.cells td, table.cells th { white-space: normal; padding: 2px 3px; }',
  '  tr { break-inside: avoid; page-break-inside: avoid; }',
  '  .answer { background: none; }',
  '  details.how > :not(summary) { display: block; }',
  '}',
].join('\n');
