/**
 * @module `cairn migrate heroku list|analyze APP|run APP|status ID|retry ID` and `cairn migrate
 * railway list|run PROJECT|status ID|retry ID`, against a running cairn (`--server URL`, its token
 * as for other remote commands: `--token`, CAIRN_TOKEN or `cairn login`). The platform's key comes
 * from HEROKU_API_KEY / RAILWAY_API_TOKEN, else from stdin (a prompt that does not echo in a
 * terminal), never from a flag that would land in shell history. `run` moves the app onto the
 * Server named by `--to` and, with `--wait`, follows its steps until it succeeds or fails.
 */
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { remoteCall, remoteIdByName } from '../remote-api.js';
import { readPassword } from '../password-input.js';
import { serverToken } from '../server-token.js';

type Platform = 'heroku' | 'railway';

interface RemoteOptions {
  server: string;
  token?: string;
  output: string;
}

interface RunOptions extends RemoteOptions {
  to: string;
  wait?: boolean;
}

const KEY_VARIABLE: Record<Platform, string> = { heroku: 'HEROKU_API_KEY', railway: 'RAILWAY_API_TOKEN' };
const PATHS: Record<Platform, { list: string; migrate: string; subjectField: string }> = {
  heroku: { list: '/api/v1/migrations/platform-b/apps', migrate: '/api/v1/migrations/platform-b/migrate', subjectField: 'app_name' },
  railway: { list: '/api/v1/migrations/platform-a/projects', migrate: '/api/v1/migrations/platform-a/migrate', subjectField: 'project_id' },
};
const WAIT_TIMEOUT_MS = 30 * 60_000;
const WAIT_POLL_MS = 2_000;

async function platformKey(platform: Platform): Promise<string> {
  const fromEnv = process.env[KEY_VARIABLE[platform]];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return readPassword(`${platform === 'heroku' ? 'Heroku API key' : 'Railway API token'} (or set ${KEY_VARIABLE[platform]}): `);
}

/** One API call with the token for `--server`; a problem answer becomes a CliError with its detail and field errors. */
async function api<T>(options: RemoteOptions, method: string, path: string, body?: unknown, query: Record<string, string> = {}): Promise<T> {
  return remoteCall<T>(options.server, await serverToken(options.server, options.token), method, path, body, query);
}

function print(options: RemoteOptions, value: unknown, text: () => string): void {
  if (options.output === 'json') process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  else process.stdout.write(`${text()}\n`);
}

interface MigrationBody {
  id: string;
  platform: string;
  subject_name: string;
  status: string;
  url: string | null;
  error: string | null;
  warnings: string[];
  steps: Array<{ name: string; status: string; detail: string | null; error: string | null }>;
}

function describeMigration(m: MigrationBody): string {
  const lines = [`migration ${m.id}: ${m.platform} ${m.subject_name} ${m.status}${m.url ? ` at ${m.url}` : ''}`];
  for (const step of m.steps) lines.push(`  ${step.name.padEnd(17)} ${step.status}${step.error ? `: ${step.error}` : step.detail ? `: ${step.detail}` : ''}`);
  for (const warning of m.warnings) lines.push(`  warning: ${warning}`);
  return lines.join('\n');
}

async function serverIdOf(options: RemoteOptions, name: string): Promise<string> {
  const id = await remoteIdByName(options.server, await serverToken(options.server, options.token), 'Server', name);
  if (id === undefined) throw new CliError(`--to ${name}: cairn has no server of that name (see cairn get servers)`);
  return id;
}

async function follow(options: RemoteOptions, id: string): Promise<MigrationBody> {
  const deadline = Date.now() + WAIT_TIMEOUT_MS;
  const shown = new Map<string, string>();
  for (;;) {
    const m = await api<MigrationBody>(options, 'GET', `/api/v1/migrations/${id}`);
    for (const step of m.steps) {
      const line = `${step.name}: ${step.status}${step.error ? `: ${step.error}` : step.detail ? `: ${step.detail}` : ''}`;
      if (shown.get(step.name) !== line && step.status !== 'pending') process.stderr.write(`${line}\n`);
      shown.set(step.name, line);
    }
    if (m.status === 'succeeded' || m.status === 'failed') return m;
    if (Date.now() > deadline) throw new CliError(`migration ${id} is still ${m.status} after 30 minutes; see cairn migrate ${m.platform} status ${id}`);
    await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
  }
}

function remote(command: Command): Command {
  return command
    .requiredOption('--server <url>', "the running cairn's address")
    .option('--token <token>', 'a cairn token (default: CAIRN_TOKEN, or the sign-in of cairn login)')
    .option('-o, --output <format>', 'text or json', 'text');
}

function checkOutput(options: RemoteOptions): void {
  if (options.output !== 'text' && options.output !== 'json') throw new CliError(`unknown output format "${options.output}"; use text or json`);
}

function registerPlatform(parent: Command, platform: Platform): void {
  const noun = platform === 'heroku' ? 'app' : 'project';
  const command = parent.command(platform).description(`move ${platform === 'heroku' ? 'a Heroku app' : 'a Railway project'} onto a cairn server (key from ${KEY_VARIABLE[platform]} or stdin)`);

  remote(command.command('list').description(`the ${noun}s the key sees`)).action(async (options: RemoteOptions) => {
    checkOutput(options);
    const key = await platformKey(platform);
    const listed = await api<{ items: Array<{ id: string; name: string; services: string[]; databases: string[] }> }>(options, 'GET', PATHS[platform].list, undefined, { api_key: key, limit: '200' });
    print(options, listed, () => listed.items.map((i) => `${i.name}  ${i.id}  services: ${i.services.join(', ') || 'none'}  databases: ${i.databases.join(', ') || 'none'}`).join('\n') || `no ${noun}s`);
  });

  if (platform === 'heroku') {
    remote(command.command('analyze <app>').description('what cairn would create for the app, and the manifests').option('--to <server>', 'the cairn Server the manifests name')).action(
      async (app: string, options: RemoteOptions & { to?: string }) => {
        checkOutput(options);
        const key = await platformKey(platform);
        const serverId = options.to === undefined ? undefined : await serverIdOf(options, options.to);
        const analysis = await api<{ manifests: string; warnings: string[]; config_vars: string[]; processes: Array<{ type: string; command: string }> }>(
          options, 'POST', '/api/v1/migrations/platform-b/analyze', { api_key: key, app_name: app, ...(serverId ? { server_id: serverId } : {}) },
        );
        print(options, analysis, () =>
          [
            ...analysis.processes.map((p) => `process ${p.type}: ${p.command}`),
            `config vars: ${analysis.config_vars.join(', ') || 'none'}`,
            ...analysis.warnings.map((w) => `warning: ${w}`),
            '---',
            analysis.manifests.trimEnd(),
          ].join('\n'),
        );
      },
    );
  }

  remote(command.command(`run <${noun}>`).description(`migrate the ${noun} onto a cairn Server`).requiredOption('--to <server>', 'the cairn Server to move it onto').option('--wait', 'follow the steps until the migration succeeds or fails')).action(
    async (subject: string, options: RunOptions) => {
      checkOutput(options);
      const key = await platformKey(platform);
      const serverId = await serverIdOf(options, options.to);
      const started = await api<MigrationBody>(options, 'POST', PATHS[platform].migrate, { api_key: key, [PATHS[platform].subjectField]: subject, server_id: serverId });
      const result = options.wait ? await follow(options, started.id) : started;
      print(options, result, () => describeMigration(result));
      if (result.status === 'failed') process.exitCode = 1;
    },
  );

  remote(command.command('status <id>').description('a migration and its steps')).action(async (id: string, options: RemoteOptions) => {
    checkOutput(options);
    const m = await api<MigrationBody>(options, 'GET', `/api/v1/migrations/${id}`);
    print(options, m, () => describeMigration(m));
  });

  remote(command.command('retry <id>').description('run a failed migration again from its failed step (the key is sent when set or given on stdin)').option('--key-stdin', 'read the key from stdin even when the variable is unset')).action(
    async (id: string, options: RemoteOptions & { keyStdin?: boolean }) => {
      checkOutput(options);
      const fromEnv = process.env[KEY_VARIABLE[platform]];
      const key = fromEnv !== undefined && fromEnv !== '' ? fromEnv : options.keyStdin ? await platformKey(platform) : undefined;
      const m = await api<MigrationBody>(options, 'POST', `/api/v1/migrations/${id}/retry`, key === undefined ? {} : { api_key: key });
      print(options, m, () => describeMigration(m));
    },
  );
}

export function registerMigrateCommand(program: Command): void {
  const migrate = program.command('migrate').description('move apps from Heroku or Railway onto a cairn server, through a running cairn');
  registerPlatform(migrate, 'heroku');
  registerPlatform(migrate, 'railway');
}
