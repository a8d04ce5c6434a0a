/**
 * @module The `cairn` program: each subcommand is a module that registers itself here. Only
 * the module of the subcommand being run is loaded (`cairn validate` never loads the store, the
 * API or the drivers; `cairn --version` loads none): start-up is paid per command, not for all.
 * Help and unknown commands load them all, to list them.
 */
import { Command } from 'commander';

type Register = (program: Command) => void;

/** Each subcommand's name, in the order help lists them, and how to load its module. */
const COMMANDS: ReadonlyArray<readonly [name: string, load: () => Promise<Register>]> = [
  ['validate', async () => (await import('./commands/validate.js')).registerValidateCommand],
  ['plan', async () => (await import('./commands/plan.js')).registerPlanCommand],
  ['apply', async () => (await import('./commands/apply.js')).registerApplyCommand],
  ['delete', async () => (await import('./commands/delete.js')).registerDeleteCommand],
  ['get', async () => (await import('./commands/get.js')).registerGetCommand],
  ['logs', async () => (await import('./commands/logs.js')).registerLogsCommand],
  ['reconcile', async () => (await import('./commands/reconcile.js')).registerReconcileCommand],
  ['deploy', async () => (await import('./commands/deploy.js')).registerDeployCommand],
  ['import', async () => (await import('./commands/import.js')).registerImportCommand],
  ['serve', async () => (await import('./commands/serve.js')).registerServeCommand],
  ['sandbox-cloud', async () => (await import('./commands/sandbox-cloud.js')).registerSandboxCloudCommand],
  ['users', async () => (await import('./commands/users.js')).registerUsersCommand],
  ['login', async () => (await import('./commands/login.js')).registerLoginCommand],
  ['keys', async () => (await import('./commands/keys.js')).registerKeysCommand],
  ['ssh-keys', async () => (await import('./commands/ssh-keys.js')).registerSshKeysCommand],
  ['sources', async () => (await import('./commands/sources.js')).registerSourcesCommand],
  ['migrate', async () => (await import('./commands/migrate.js')).registerMigrateCommand],
];

export const COMMAND_NAMES: readonly string[] = COMMANDS.map(([name]) => name);

/**
 * The subcommands to register for these arguments (argv without node and the script): the one
 * named first (the program has no options that take a value, so it is the first word that is
 * not an option); none for a bare `--version`; all for help or a name that is not a command.
 */
export function commandsToLoad(args: readonly string[]): string[] {
  const named = args.find((a) => !a.startsWith('-'));
  if (named !== undefined && COMMAND_NAMES.includes(named)) return [named];
  if (named === undefined && args.some((a) => a === '-V' || a === '--version') && !args.some((a) => a === '-h' || a === '--help')) return [];
  return [...COMMAND_NAMES];
}

/** The program with the subcommands `argv` needs registered (all of them without `argv`). */
export async function buildProgram(argv?: readonly string[]): Promise<Command> {
  const program = new Command('cairn')
    .description('cairn: declare servers, databases and apps; a reconcile loop makes the world match')
    .version('0.1.0')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  const wanted = new Set(argv === undefined ? COMMAND_NAMES : commandsToLoad(argv.slice(2)));
  const registers = await Promise.all(COMMANDS.filter(([name]) => wanted.has(name)).map(([, load]) => load()));
  for (const register of registers) register(program);
  for (const command of program.commands) command.exitOverride();
  return program;
}
