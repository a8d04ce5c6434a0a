/**
 * @module The one way an argument reaches a remote shell. An SSH exec request carries a single
 * command line that the remote user's login shell parses, so every argument cairn sends is
 * quoted here, POSIX single-quote style: inside '...' nothing is special but the quote itself,
 * which is written as '\''. NUL cannot travel in a command line at all and is refused.
 */

/** Thrown for an argument that no shell command line can carry (it contains NUL). */
export class UnquotableArgumentError extends Error {
  constructor(readonly argument: string) {
    super(`a remote command argument contains a NUL character, which no shell command line can carry: ${JSON.stringify(argument.slice(0, 80))}`);
    this.name = 'UnquotableArgumentError';
  }
}

/** Characters that need no quoting in any POSIX shell (kept short: only what is clearly inert). */
const PLAIN = /^[A-Za-z0-9_./:=@%+,-]+$/;

/** `s` as one shell word: unchanged when it is plainly inert, else single-quoted. */
export function quoteShellArg(s: string): string {
  if (s.includes('\0')) throw new UnquotableArgumentError(s);
  // A leading '=' or '~' could be expanded by some shells (zsh, tilde expansion): quote those too.
  if (PLAIN.test(s) && !s.startsWith('=')) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The command line that runs `argv` (program first) as exactly those arguments. */
export function shellCommand(argv: readonly string[]): string {
  if (argv.length === 0) throw new Error('a remote command needs at least a program name (argv is empty)');
  return argv.map(quoteShellArg).join(' ');
}
