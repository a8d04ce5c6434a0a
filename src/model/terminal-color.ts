/**
 * @module ANSI colours for terminal output, and the rule that decides whether to use them
 * (NO_COLOR, FORCE_COLOR, then whether the stream is a terminal).
 */

/** Wraps text in a colour; the identity when colour is off. */
export interface Palette {
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
  bold(text: string): string;
}

const RESET = '\u001b[0m';

function ansi(code: number): (text: string) => string {
  return (text) => `\u001b[${code}m${text}${RESET}`;
}

const COLORED: Palette = { green: ansi(32), yellow: ansi(33), red: ansi(31), bold: ansi(1) };
const PLAIN: Palette = { green: (t) => t, yellow: (t) => t, red: (t) => t, bold: (t) => t };

export function paletteFor(color: boolean): Palette {
  return color ? COLORED : PLAIN;
}

/**
 * NO_COLOR set and non-empty → no colour (no-color.org); FORCE_COLOR set and not `0` or
 * `false` → colour; otherwise colour only when the stream is a terminal.
 */
export function shouldUseColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  const noColor = env.NO_COLOR;
  if (noColor !== undefined && noColor !== '') return false;
  const forceColor = env.FORCE_COLOR;
  if (forceColor !== undefined && forceColor !== '0' && forceColor !== 'false') return true;
  return stream.isTTY === true;
}
