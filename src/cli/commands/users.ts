/**
 * @module `cairn users add --email E --role R [--tenant NAME]` and `cairn users list`: accounts
 * and their memberships, managed from the machine that holds the data dir. A new account's
 * password comes from stdin's first line, or a prompt without echo on a terminal.
 */
import type { Command } from 'commander';
import { passwordProblem } from '../../auth/passwords.js';
import { isRole, ROLES, type Role } from '../../auth/roles.js';
import { addUser, DEFAULT_TENANT_NAME, type AddedUser } from '../../auth/user-accounts.js';
import { Store } from '../../store/store.js';
import { CliError } from '../cli-error.js';
import { addDataDirOption, resolveDataDir } from '../data-dir.js';
import { readPassword } from '../password-input.js';

interface AddOptions {
  email: string;
  role: string;
  tenant: string;
  dataDir?: string;
}

interface ListOptions {
  output: string;
  dataDir?: string;
}

export function registerUsersCommand(program: Command): void {
  const users = program.command('users').description('add users to tenants and list them');
  addDataDirOption(
    users
      .command('add')
      .description('add a user to a tenant (creating either when missing); a new user\'s password is read from stdin or asked for')
      .requiredOption('--email <email>', 'the user\'s email (their sign-in name)')
      .requiredOption('--role <role>', ROLES.join(', '))
      .option('--tenant <name>', 'the tenant (created when missing)', DEFAULT_TENANT_NAME),
  ).action(async (options: AddOptions) => {
    if (!isRole(options.role)) throw new CliError(`--role must be one of ${ROLES.join(', ')}, got "${options.role}"`);
    const role: Role = options.role;
    const store = Store.open(resolveDataDir(options.dataDir));
    try {
      const existing = store.users.findByEmail(options.email);
      const password = existing ? undefined : await newPassword();
      const added = await addUser(store, { email: options.email, password, role, tenantName: options.tenant }, 'cli');
      console.log(describeAdded(added));
    } finally {
      store.close();
    }
  });

  addDataDirOption(
    users
      .command('list')
      .description('list users with their tenants and roles')
      .option('-o, --output <format>', 'table or json', 'table'),
  ).action((options: ListOptions) => {
    if (!['table', 'json'].includes(options.output)) throw new CliError(`unknown output format "${options.output}"; use table or json`);
    const store = Store.open(resolveDataDir(options.dataDir));
    try {
      const rows = store.users
        .list()
        .flatMap((u) => (u.memberships.length > 0 ? u.memberships : [undefined]).map((m) => ({ email: u.email, tenant: m?.tenantName ?? null, role: m?.role ?? null, created_at: u.createdAt })));
      if (options.output === 'json') {
        process.stdout.write(`${JSON.stringify({ items: rows }, null, 2)}\n`);
        return;
      }
      if (rows.length === 0) {
        process.stdout.write('No users. Add the first owner with: cairn users add --email you@example.com --role owner\n');
        return;
      }
      const table = [['EMAIL', 'TENANT', 'ROLE', 'CREATED'], ...rows.map((r) => [r.email, r.tenant ?? '-', r.role ?? '-', r.created_at])];
      const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
      process.stdout.write(table.map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('   ').trimEnd()).join('\n') + '\n');
    } finally {
      store.close();
    }
  });
}

async function newPassword(): Promise<string> {
  const password = await readPassword('Password (at least 12 characters): ');
  const problem = passwordProblem(password);
  if (problem) throw new CliError(problem);
  if (process.stdin.isTTY && (await readPassword('Repeat the password: ')) !== password) throw new CliError('the two passwords differ; nothing was changed');
  return password;
}

function describeAdded(added: AddedUser): string {
  const where = `tenant ${added.tenant.name}${added.createdTenant ? ' (new)' : ''}`;
  if (added.createdUser) return `added ${added.user.email} to ${where} as ${added.role}`;
  if (added.previousRole === null) return `added existing user ${added.user.email} to ${where} as ${added.role} (their password is unchanged)`;
  if (added.previousRole === added.role) return `${added.user.email} is already ${added.role} in ${where}; nothing changed`;
  return `${added.user.email} is now ${added.role} in ${where} (was ${added.previousRole})`;
}
