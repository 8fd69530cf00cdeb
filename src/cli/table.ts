import { stripAnsi } from './style.js';

/** A table cell: its text, optionally painted after padding (padding counts the text only). */
export type Cell = string | { text: string; paint?: (text: string) => string };

/**
 * Lays out a text table: columns padded to their widest cell, separated by two spaces, the
 * header underlined with dashes. Every line starts with `indent`.
 */
export function renderTable(
  header: readonly string[],
  rows: readonly (readonly Cell[])[],
  indent = '  ',
): string[] {
  const texts = (row: readonly Cell[]) => row.map((cell) => (typeof cell === 'string' ? cell : cell.text));
  const widths = header.map((h) => h.length);
  for (const row of rows)
    texts(row).forEach((text, i) => {
      widths[i] = Math.max(widths[i] ?? 0, stripAnsi(text).length);
    });
  const line = (cells: readonly Cell[]) =>
    indent +
    cells
      .map((cell, i) => {
        const text = typeof cell === 'string' ? cell : cell.text;
        const padded = i === cells.length - 1 ? text : text + ' '.repeat(widths[i] - stripAnsi(text).length);
        return typeof cell === 'string' || cell.paint === undefined ? padded : cell.paint(padded);
      })
      .join('  ')
      .trimEnd();
  return [line(header), indent + widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}
