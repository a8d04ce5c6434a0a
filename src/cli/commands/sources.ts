/**
 * @module `cairn sources add|list|get|set|suspend|resume|sync|delete`: git sources managed from
 * the machine that holds the data dir (the same records as `/api/v1/sources`). `add` prints the
 * webhook secret once; a token or password is read from stdin, never from the command line.
 * `sync` asks a running `cairn serve` to sync and follows it, or syncs here when none runs.
 */
import type { Command } from 'commander';
import { DEFAULT_TENANT_NAME } from '../../auth/user-accounts.js';
import { Controller } from '../../reconcile/controller.js';
import { newSourceFromBody, sourceChangesFromBody, sourceRecord, type SourceCreateBody, type SourceRecord, type SourceUpdateBody } from '../../api/records/source-record.js';
import { removeSource } from '../../sources/source-removal.js';
import { SourceSyncer } from '../../sources/source-sync.js';
import { newWebhookSecret } from '../../sources/webhook-signature.js';
import type { GitSource } from '../../store/sources.js';
import { Store } from '../../store/store.js';
import { CliError } from '../cli-error.js';
import { addDataDirOption, resolveDataDir } from '../data-dir.js';
import { parseDuration } from '../duration.js';
import { readPassword } from '../password-input.js';

interface CommonOptions {
  tenant: string;
  dataDir?: string;
}

interface AddOptions extends CommonOptions {
  url: string;
  ref: string;
  path: string;
  interval: string;
  prune: boolean;
  suspended?: boolean;
  tokenStdin?: boolean;
  username?: string;
}

interface SetOptions extends CommonOptions {
  ref?: string;
  path?: string;
  interval?: string;
  prune?: boolean;
}

const FOLLOW_TIMEOUT_MS = 120_000;

function withStore<T>(options: CommonOptions, work: (store: Store, tenant: string) => Promise<T> | T): Promise<T> {
  const store = Store.open(resolveDataDir(options.dataDir));
  const close = (): void => store.close();
  try {
    const tenant = store.tenants.findByName(options.tenant);
    if (!tenant) throw new CliError(`no tenant named ${options.tenant}`);
    return Promise.resolve(work(store, tenant.id)).finally(close);
  } catch (error) {
    close();
    throw error;
  }
}

function byName(store: Store, tenant: string, name: string): GitSource {
  const found = store.sources.findByName(tenant, name);
  if (!found) throw new CliError(`no source named ${name}; see cairn sources list`);
  return found;
}

function intervalSeconds(text: string): number {
  const seconds = parseDuration(text, '--interval') / 1000;
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 86_400) throw new CliError(`--interval must be whole seconds from 1s to 24h, got "${text}"`);
  return seconds;
}

function describeSource(record: SourceRecord): string {
  const lines = [
    `${record.name}  ${record.status}`,
    `  id:        ${record.id}`,
    `  url:       ${record.url}  ref ${record.ref}  path ${record.path}`,
    `  interval:  ${record.interval_seconds}s  prune ${record.prune ? 'on' : 'off'}${record.auth ? `  auth ${record.auth.type}` : ''}`,
    `  revision:  ${record.revision ?? 'none yet'}${record.attempted_revision && record.attempted_revision !== record.revision ? `  (rejected: ${record.attempted_revision})` : ''}`,
    `  webhook:   POST ${record.webhook_path}`,
  ];
  const ready = record.conditions.find((c) => c.type === 'Ready');
  if (ready) lines.push(`  Ready ${ready.status} ${ready.reason}: ${ready.message.split('\n').join('\n    ')}`);
  for (const orphan of record.orphans) lines.push(`  orphaned (prune is off): ${orphan}`);
  for (const c of record.conflicts) lines.push(`  conflict: ${c.kind}/${c.name} is owned by ${c.owner}, declared by ${c.declared_by}`);
  return lines.join('\n');
}

function validated<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof Error && 'issues' in error) throw new CliError(error.message);
    throw error;
  }
}

export function registerSourcesCommand(program: Command): void {
  const sources = program.command('sources').description('git repositories whose manifests cairn applies');
  const common = (command: Command): Command => addDataDirOption(command.option('--tenant <name>', 'the tenant', DEFAULT_TENANT_NAME));

  common(
    sources
      .command('add <name>')
      .description('add a git source; prints its webhook secret once')
      .requiredOption('--url <url>', 'the repository (http:// or https://)')
      .option('--ref <ref>', 'branch, tag or commit id', 'main')
      .option('--path <path>', 'directory inside the repository', '.')
      .option('--interval <duration>', 'how often to fetch (e.g. 30s, 5m)', '60s')
      .option('--no-prune', 'report resources whose manifests are gone instead of deleting them')
      .option('--suspended', 'add it suspended: nothing is applied until resumed')
      .option('--token-stdin', 'read an access token for the repository from stdin')
      .option('--username <name>', 'basic auth user; the password is read from stdin'),
  ).action((name: string, options: AddOptions) =>
    withStore(options, async (store, tenant) => {
      if (options.tokenStdin && options.username) throw new CliError('give either --token-stdin or --username, not both');
      const auth: SourceCreateBody['auth'] = options.tokenStdin
        ? { type: 'token', token: await readPassword('Access token: ') }
        : options.username
          ? { type: 'basic', username: options.username, password: await readPassword('Password: ') }
          : undefined;
      const body: SourceCreateBody = {
        name, url: options.url, ref: options.ref, path: options.path, interval_seconds: intervalSeconds(options.interval), prune: options.prune,
        ...(options.suspended ? { suspended: true } : {}), ...(auth ? { auth } : {}),
      };
      const source = validated(() => newSourceFromBody(body));
      const secret = newWebhookSecret();
      const created = store.sources.create(tenant, source, secret);
      store.sources.requestSync(created.id);
      console.log(describeSource(sourceRecord(created, store)));
      console.log(`  webhook secret (shown only now): ${secret}`);
    }),
  );

  common(sources.command('list').description('list sources').option('-o, --output <format>', 'table or json', 'table')).action(
    (options: CommonOptions & { output: string }) =>
      withStore(options, (store, tenant) => {
        const items = store.sources.all().filter((s) => s.tenant === tenant).map((s) => sourceRecord(s, store));
        if (options.output === 'json') return void process.stdout.write(`${JSON.stringify({ items }, null, 2)}\n`);
        if (options.output !== 'table') throw new CliError(`unknown output format "${options.output}"; use table or json`);
        if (items.length === 0) return void console.log('No sources. Add one with: cairn sources add NAME --url https://...');
        const rows = [['NAME', 'STATUS', 'REF', 'PATH', 'REVISION', 'URL'], ...items.map((s) => [s.name, s.status, s.ref, s.path, s.revision?.slice(0, 12) ?? '-', s.url])];
        const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
        console.log(rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('   ').trimEnd()).join('\n'));
      }),
  );

  common(sources.command('get <name>').description('show a source: revision in force, errors, orphans, conflicts').option('-o, --output <format>', 'text or json', 'text')).action(
    (name: string, options: CommonOptions & { output: string }) =>
      withStore(options, (store, tenant) => {
        const record = sourceRecord(byName(store, tenant, name), store);
        console.log(options.output === 'json' ? JSON.stringify(record, null, 2) : describeSource(record));
        if (record.status === 'failed') process.exitCode = 1;
      }),
  );

  common(
    sources
      .command('set <name>')
      .description('change ref, path, interval or prune')
      .option('--ref <ref>', 'branch, tag or commit id')
      .option('--path <path>', 'directory inside the repository')
      .option('--interval <duration>', 'how often to fetch')
      .option('--prune', 'delete resources whose manifests are gone')
      .option('--no-prune', 'report them as orphans instead'),
  ).action((name: string, options: SetOptions) =>
    withStore(options, (store, tenant) => {
      const body: SourceUpdateBody = {
        ...(options.ref !== undefined ? { ref: options.ref } : {}),
        ...(options.path !== undefined ? { path: options.path } : {}),
        ...(options.interval !== undefined ? { interval_seconds: intervalSeconds(options.interval) } : {}),
        ...(options.prune !== undefined ? { prune: options.prune } : {}),
      };
      if (Object.keys(body).length === 0) throw new CliError('nothing to change: give --ref, --path, --interval, --prune or --no-prune');
      const updated = store.sources.update(byName(store, tenant, name).id, validated(() => sourceChangesFromBody(body)));
      console.log(describeSource(sourceRecord(updated, store)));
    }),
  );

  for (const [verb, suspended] of [['suspend', true], ['resume', false]] as const) {
    common(sources.command(`${verb} <name>`).description(suspended ? 'apply nothing from this source until resumed' : 'apply this source again')).action(
      (name: string, options: CommonOptions) =>
        withStore(options, (store, tenant) => {
          store.sources.update(byName(store, tenant, name).id, { suspended });
          console.log(`${name} ${suspended ? 'suspended: nothing is applied from it until `cairn sources resume`' : 'resumed: it syncs now'}`);
        }),
    );
  }

  common(sources.command('sync <name>').description('sync now (through a running cairn serve, or here)').option('--timeout <duration>', 'how long to follow a running serve', '2m')).action(
    (name: string, options: CommonOptions & { timeout: string }) =>
      withStore(options, async (store, tenant) => {
        const source = byName(store, tenant, name);
        const holder = Controller.activeReconciler(store);
        if (!holder) {
          const report = await new SourceSyncer(store, resolveDataDir(options.dataDir)).sync(source.id);
          console.log(report.message);
          if (report.result === 'rejected' || report.result === 'failed') process.exitCode = 1;
          else if (report.result === 'applied') console.log('desired state written; `cairn serve` (or `cairn apply`) reconciles it');
          return;
        }
        store.sources.requestSync(source.id);
        console.log(`asked cairn (pid ${holder.pid} on ${holder.host}) to sync ${name}`);
        const deadline = Date.now() + Math.min(parseDuration(options.timeout, '--timeout'), FOLLOW_TIMEOUT_MS * 10);
        while (Date.now() < deadline) {
          const now = store.sources.get(source.id);
          if (now && now.lastAttemptAt !== source.lastAttemptAt) {
            console.log(describeSource(sourceRecord(now, store)));
            if (sourceRecord(now, store).status === 'failed') process.exitCode = 1;
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        throw new CliError(`cairn did not sync ${name} within ${options.timeout}`);
      }),
  );

  common(sources.command('delete <name>').description('remove a source; with prune on its resources are deleted, otherwise handed to the API')).action(
    (name: string, options: CommonOptions) =>
      withStore(options, (store, tenant) => {
        const { deleted, kept } = removeSource(store, byName(store, tenant, name));
        console.log(`removed ${name}: ${deleted} resource${deleted === 1 ? '' : 's'} to be deleted, ${kept} kept (now owned by the API)`);
      }),
  );
}
