import { printable } from './style.js';

/** A cell's text, optionally painted after padding (padding counts the text only). */
interface PaintedText {
  text: string;
  paint?: (text: string) => string;
}

/** A table cell: plain text, or text to paint. */
export type Cell = string | PaintedText;

/**
 * Lays out a text table: columns padded to their widest cell, separated by two spaces, the
 * header underlined with dashes. Every line starts with `indent`. Cells hold text from the site
 * (patterns, user agents, URLs), so their control characters are shown as escapes.
 */
export function renderTable(
  header: readonly string[],
  rows: readonly (readonly Cell[])[],
  indent = '  ',
): string[] {
  const shown = rows.map((row) =>
    row.map((cell) =>
      typeof cell === 'string' ? { text: printable(cell) } : { ...cell, text: printable(cell.text) },
    ),
  );
  const widths = header.map((h) => h.length);
  for (const row of shown)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.text.length);
    });
  const line = (cells: readonly PaintedText[]) =>
    indent +
    cells
      .map((cell, i) => {
        const padded =
          i === cells.length - 1 ? cell.text : cell.text + ' '.repeat(widths[i] - cell.text.length);
        return cell.paint === undefined ? padded : cell.paint(padded);
      })
      .join('  ')
      .trimEnd();
  return [
    line(header.map((text) => ({ text }))),
    indent + widths.map((w) => '-'.repeat(w)).join('  '),
    ...shown.map(line),
  ];
}

/** `1 URL`, `2 URLs`: a count and its noun, plural but for one. */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
