import type { CliOutput } from './io.js';

/** Paints text with ANSI colours, or leaves it alone when colours are off. */
export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  /** Reverse video: the decisive line of a file listing. */
  inverse(text: string): string;
}

const paint =
  (enabled: boolean, open: number, close: number) =>
  (text: string): string =>
    enabled && text !== '' ? `\u001b[${open}m${text}\u001b[${close}m` : text;

export function createStyle(enabled: boolean): Style {
  return {
    enabled,
    bold: paint(enabled, 1, 22),
    dim: paint(enabled, 2, 22),
    red: paint(enabled, 31, 39),
    green: paint(enabled, 32, 39),
    yellow: paint(enabled, 33, 39),
    cyan: paint(enabled, 36, 39),
    inverse: paint(enabled, 7, 27),
  };
}

/**
 * Whether to colour the output: `--color` / `--no-color` decide when given; otherwise a
 * non-empty `NO_COLOR` turns colours off (no-color.org), `FORCE_COLOR` set to `0` or `false`
 * turns them off and set to anything else turns them on (the convention of Node and of
 * chalk), and else they follow whether stdout is a terminal.
 */
export function wantsColor(
  flag: boolean | undefined,
  stdout: CliOutput,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (flag !== undefined) return flag;
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  const force = env['FORCE_COLOR'];
  if (force !== undefined) return force !== '0' && force !== 'false';
  return stdout.isTTY === true;
}

/**
 * C0 controls, DEL and C1 controls, which a terminal acts on instead of showing them, and the
 * bidirectional marks and overrides, which make text read in another order than it is.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every control character written as a `\uXXXX` escape (`\u001b` for ESC). For
 * text from a site, a file or the command line on its way to a terminal: ESC starts sequences
 * that retitle the window or clear the screen, and C1 controls (U+009B) do the same on some
 * terminals. A backslash stays as it is: doubling it would misquote every file that has one.
 */
export function printable(text: string): string {
  return text.replace(CONTROL, unicodeEscape);
}

/**
 * `text` cut to its first `max` UTF-16 units and marked `...` when it is longer. A character
 * outside the BMP is never cut in half (its halves would print as U+FFFD): the cut moves before it.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? max - 1 : max;
  return `${text.slice(0, end)}...`;
}

/** A character as a `\uXXXX` escape, the form JSON gives characters without a short escape. */
export function unicodeEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
