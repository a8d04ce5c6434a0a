/**
 * @module `cairn deploy --type server|database|app --provider P --region R --size S [--name N]
 * [...]`: the command-line face of `POST /deploy`. With `--server URL` it asks a running cairn;
 * else it records the deploy in the data dir and reconciles it here (or follows the `cairn
 * serve` that holds the data dir). Progress goes to stderr; stdout gets the id and the endpoint,
 * or with `-o json` the resource as the REST API answers it, `endpoint` included.
 */
import type { Command } from 'commander';
import { deployedRecord, deployManifests, recordDeploy, type DeployBody, type DeployedResource } from '../../api/deploy-request.js';
import { ProviderCatalogs } from '../../api/provider-catalog.js';
import { DEFAULT_TENANT } from '../../model/resource.js';
import { driverPoolFor } from '../../reconcile/driver-pool.js';
import { Store } from '../../store/store.js';
import { CliError } from '../cli-error.js';
import { addDataDirOption, resolveDataDir } from '../data-dir.js';
import { deployBody, withIds, type DeployOptions } from '../deploy-body.js';
import { parseDuration } from '../duration.js';
import { reconcileUntilSettled } from '../reconcile-session.js';
import { remoteDeploy } from '../remote-deploy.js';
import { reportConvergence } from '../report-convergence.js';
import { serverToken } from '../server-token.js';

interface DeployCommandOptions extends DeployOptions {
  output: string;
  server?: string;
  token?: string;
  timeout: string;
  dataDir?: string;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

async function deployHere(body: DeployBody, dataDir: string, timeoutMs: number): Promise<Record<string, unknown>> {
  const store = Store.open(dataDir);
  const drivers = driverPoolFor(store, dataDir, 10_000);
  try {
    const request = await withIds(body, (kind, name) => Promise.resolve(store.resources.find(DEFAULT_TENANT, { kind, namespace: 'default', name })?.uid));
    const manifests = await deployManifests(store, DEFAULT_TENANT, request, new ProviderCatalogs(drivers));
    const deployed = recordDeploy(store, DEFAULT_TENANT, manifests);
    const targets = manifests.map((m) => {
      const stored = store.resources.find(DEFAULT_TENANT, { kind: m.kind, namespace: m.metadata.namespace ?? 'default', name: m.metadata.name });
      if (!stored) throw new Error(`${m.kind}/${m.metadata.name} was not recorded`);
      return { uid: stored.uid, tenant: stored.tenant, kind: stored.kind, namespace: stored.namespace, name: stored.name, deleting: false };
    });
    process.stderr.write(`deploying ${body.type} ${deployed.name} (id ${deployed.uid})\n`);
    const report = await reconcileUntilSettled(store, targets, { dataDir, timeoutMs, write: (line) => process.stderr.write(`${line}\n`), note: (line) => process.stderr.write(`${line}\n`) });
    if (!report.ok) reportConvergence(report, 'Deploy');
    return deployedRecord(store, DEFAULT_TENANT, store.resources.get(deployed.uid) as DeployedResource);
  } finally {
    await drivers.close();
    store.close();
  }
}

export function registerDeployCommand(program: Command): void {
  addDataDirOption(
    program
      .command('deploy')
      .description('deploy a server, database or app by provider, region and size, and wait until it is up')
      .requiredOption('--type <type>', 'server, database or app')
      .requiredOption('--provider <provider>', 'the Provider (name or id)')
      .option('--region <region>', "one of the provider's regions (not with --on)")
      .option('--size <size>', "one of the provider's sizes (not with --on)")
      .option('--name <name>', 'the name (default: the type and a random suffix)')
      .option('--image <image>', "the server's image")
      .option('--on <server>', 'database or app: an existing Server (name or id) instead of a new one')
      .option('--label <key=value>', 'a label (repeatable)', collect, [])
      .option('--engine <engine>', 'database: postgresql or mongodb')
      .option('--db-version <version>', 'database: the engine version, e.g. 16')
      .option('--storage-gb <n>', 'database: storage in GB (postgresql)')
      .option('--git <url>', "app: the git repository of the app's source")
      .option('--ref <ref>', 'app: the branch, tag or commit of --git (default main)')
      .option('--path <dir>', 'app: the directory of the app within --git')
      .option('--source-image <image>', 'app: a container image as the source')
      .option('--source-path <dir>', 'app: a directory on the host as the source (local vendor)')
      .option('--build <command>', 'app: the build command')
      .option('--command <command>', 'app: the start command')
      .option('--port <n>', 'app: the port it listens on')
      .option('--env <key=value>', 'app: an environment variable (repeatable)', collect, [])
      .option('--database <name>', 'app: a Database it uses (repeatable; the first is DATABASE_URL)', collect, [])
      .option('--health-check <path>', 'app: the HTTP path of its health check')
      .option('-o, --output <format>', 'text or json', 'text')
      .option('--server <url>', 'deploy through a running cairn instead of the data dir')
      .option('--token <token>', 'API token for --server (env CAIRN_TOKEN; else the one cairn login stored)')
      .option('--timeout <duration>', 'how long to wait until it is up', '15m'),
  ).action(async (options: DeployCommandOptions) => {
    if (!['text', 'json'].includes(options.output)) throw new CliError(`unknown output format "${options.output}"; use text or json`);
    const body = deployBody(options);
    const timeoutMs = parseDuration(options.timeout, '--timeout');
    const record = options.server !== undefined
      ? await remoteDeploy({ server: options.server, token: await serverToken(options.server, options.token), body, timeoutMs, progress: (line) => process.stderr.write(`${line}\n`) })
      : await deployHere(body, resolveDataDir(options.dataDir), timeoutMs);
    if (options.output === 'json') {
      process.stdout.write(`${JSON.stringify(record, null, 2)}\n`);
    } else {
      process.stdout.write(`id: ${String(record.id)}\nendpoint: ${typeof record.endpoint === 'string' ? record.endpoint : '(none yet)'}\n`);
    }
  });
}
