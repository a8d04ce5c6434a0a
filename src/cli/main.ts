/**
 * @module The `cairn` command's entry point: runs the program (see program.ts).
 * Errors go to stderr with exit code 1 (or the command's own code).
 */
import { CommanderError } from 'commander';
import { CairnError } from '../model/errors.js';
import { SecretsError } from '../secrets/secrets-error.js';
import { CliError } from './cli-error.js';
import { buildProgram } from './program.js';

export async function main(argv: string[]): Promise<number> {
  try {
    await (await buildProgram(argv)).parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 1;
    if (error instanceof CliError) {
      console.error(`Error: ${error.message}`);
      return error.exitCode;
    }
    if (error instanceof CairnError || error instanceof SecretsError) {
      console.error(`Error: ${error.message}`);
      return 1;
    }
    console.error(`Error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  }
}

const code = await main(process.argv);
process.exitCode = code;
