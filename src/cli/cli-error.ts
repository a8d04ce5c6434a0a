/**
 * @module An error a command reports to the user as it is: its message on stderr, exit code 1
 * (or the code it carries).
 */

export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}
