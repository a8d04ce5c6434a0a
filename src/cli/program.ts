/**
 * @module The `cairn` program: each subcommand is a module that registers itself here.
 */
import { Command } from 'commander';
import { registerApplyCommand } from './commands/apply.js';
import { registerDeleteCommand } from './commands/delete.js';
import { registerGetCommand } from './commands/get.js';
import { registerKeysCommand } from './commands/keys.js';
import { registerLogsCommand } from './commands/logs.js';
import { registerPlanCommand } from './commands/plan.js';
import { registerSandboxCloudCommand } from './commands/sandbox-cloud.js';
import { registerServeCommand } from './commands/serve.js';
import { registerSourcesCommand } from './commands/sources.js';
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
    registerSourcesCommand,
  ]) {
    register(program);
  }
  for (const command of program.commands) command.exitOverride();
  return program;
}
