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
 * non-empty `NO_COLOR` turns colours off (no-color.org), a `FORCE_COLOR` other than `0` turns
 * them on, and else they follow whether stdout is a terminal.
 */
export function wantsColor(
  flag: boolean | undefined,
  stdout: CliOutput,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (flag !== undefined) return flag;
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  if (env['FORCE_COLOR'] !== undefined && env['FORCE_COLOR'] !== '0') return true;
  return stdout.isTTY === true;
}

/** Removes ANSI colour codes (for tests and width computations). */
export function stripAnsi(text: string): string {
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}
