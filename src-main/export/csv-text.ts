// CSV text itself (RFC 4180), shared by the cells' CSV (export/csv.ts) and the costs' (cost-csv.ts).

/** One field's value; null and undefined are written as an empty field. */
export type Cell = string | number | boolean | null | undefined;

/** RFC 4180: CRLF line ends; fields with a comma, quote or line break quoted, quotes doubled. */
export function toCsv(header: string[], rows: Cell[][]): string {
  const field = (v: Cell): string => {
    const s =
      v === null || v === undefined
        ? ''
        : typeof v === 'number'
          ? Number.isInteger(v)
            ? String(v)
            : v.toFixed(3)
          : String(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [header, ...rows].map((r) => r.map(field).join(',')).join('\r\n') + '\r\n';
}
