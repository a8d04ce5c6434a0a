/**
 * @module The `cairn` command: each subcommand is a module that registers itself here.
 * Errors go to stderr with exit code 1 (or the command's own code).
 */
import { Command, CommanderError } from 'commander';
import { CairnError } from '../model/errors.js';
import { SecretsError } from '../secrets/secrets-error.js';
import { CliError } from './cli-error.js';
import { registerApplyCommand } from './commands/apply.js';
import { registerDeleteCommand } from './commands/delete.js';
import { registerGetCommand } from './commands/get.js';
import { registerKeysCommand } from './commands/keys.js';
import { registerLogsCommand } from './commands/logs.js';
import { registerPlanCommand } from './commands/plan.js';
import { registerSandboxCloudCommand } from './commands/sandbox-cloud.js';
import { registerServeCommand } from './commands/serve.js';
import { registerUsersCommand } from './commands/users.js';
import { registerValidateCommand } from './commands/validate.js';

export function buildProgram(): Command {
  const program = new Command('cairn')
    .description('cairn: declare servers, databases and apps; a reconcile loop makes the world match')
    .version('0.1.0')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  for (const register of [
    registerValidateCommand,
    registerPlanCommand,
    registerApplyCommand,
    registerDeleteCommand,
    registerGetCommand,
    registerLogsCommand,
    registerServeCommand,
    registerSandboxCloudCommand,
    registerUsersCommand,
    registerKeysCommand,
  ]) {
    register(program);
  }
  for (const command of program.commands) command.exitOverride();
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
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
