/**
 * @module `cairn serve`: the long-running control plane on embedded defaults — reconciles the
 * data dir (waiting for the lease if another process holds it), syncs its git sources and the
 * directories given with `--watch` while it holds the lease, and serves the REST API, health
 * and metrics.
 */
import { statSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Command } from 'commander';
import { Controller, LeaseHeldError } from '../../reconcile/controller.js';
import { Store } from '../../store/store.js';
import { CliError } from '../cli-error.js';
import { controllerOptionsFromEnv } from '../controller-options.js';
import { addDataDirOption, resolveDataDir } from '../data-dir.js';
import { readManifests } from '../manifest-input.js';
import { applyAtStart } from '../apply-at-start.js';
import { buildApi } from '../serve-api.js';
import { SourceSyncLoop } from '../../sources/sync-loop.js';
import { SourceSyncer } from '../../sources/source-sync.js';
import { DirectoryWatch } from '../../sources/directory-watch.js';
import { DEFAULT_TENANT } from '../../model/resource.js';

interface ServeOptions {
  apply?: string[];
  watch?: string[];
  port?: string;
  host: string;
  dataDir?: string;
}

const LEASE_RETRY_MS = 2_000;

export function registerServeCommand(program: Command): void {
  addDataDirOption(
    program
      .command('serve')
      .description('run the control plane: reconcile the data dir and serve HTTP')
      .option('--port <port>', 'HTTP port (env PORT; default 8080)')
      .option('--host <host>', 'address to listen on', '127.0.0.1')
      .option('--apply <path...>', 'apply these manifests at start (as `cairn apply --auto-approve` would) and report their progress')
      .option('--watch <dir...>', 'apply the manifests in these directories, and again whenever they change (development; prunes what disappears)'),
  ).action(async (options: ServeOptions) => {
    const port = Number(options.port ?? process.env.PORT ?? 8080);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be a port number (0-65535), got "${options.port}"`);
    for (const dir of options.watch ?? []) {
      if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new CliError(`--watch ${dir}: no such directory`);
    }
    const dataDir = resolveDataDir(options.dataDir);
    const store = Store.open(dataDir);
    const manifests = options.apply ? await readManifests(options.apply, store) : [];
    const controllerOptions = controllerOptionsFromEnv(dataDir);
    const makeController = (): Controller =>
      new Controller(store, {
        ...controllerOptions,
        onReconciled: (resource, outcome, durationMs) => app.reconcileMetrics.onReconciled(resource, outcome, durationMs),
        onLeaseLost: () => {
          reconciling = false;
          void sources.stop();
          console.error('lost the reconcile lease to another process; waiting to take it back');
          controller = makeController();
          retry = setTimeout(tryStart, LEASE_RETRY_MS);
        },
      });
    let controller = makeController();
    // Git sources sync in the process that reconciles: started and stopped with the lease.
    const sources = new SourceSyncLoop(store, new SourceSyncer(store, dataDir, () => controller.readFeed()), {
      onReport: (report) => {
        if (report.result !== 'unchanged') console.log(`source ${report.sourceId}: ${report.message.split('\n')[0]}`);
      },
      onError: (id, error) => console.error(`source ${id}: sync failed: ${error instanceof Error ? error.message : String(error)}`),
    });
    const watches = (options.watch ?? []).map((dir) => new DirectoryWatch(store, dir, {
      tenant: DEFAULT_TENANT,
      afterWrite: () => controller.readFeed(),
      onReport: (message) => console.log(message),
    }));
    let watching = false;
    let reconciling = false;
    let stopping = false;
    let retry: NodeJS.Timeout | undefined;
    let lastWait = '';

    const app = await buildApi(store, dataDir, controllerOptions, {
      readiness: { storeWritable: () => store.isWritable(), reconciling: () => reconciling },
      controller: () => controller,
      requestSourceSync: (id) => sources.trigger(id),
    });
    const server: Server = await new Promise((resolve, reject) => {
      const s = app.express.listen(port, options.host, () => resolve(s));
      s.once('error', (error: NodeJS.ErrnoException) =>
        reject(new CliError(error.code === 'EADDRINUSE' ? `port ${port} on ${options.host} is already in use; choose another with --port` : error.message)),
      );
    });
    const address = server.address();
    const boundPort = typeof address === 'object' && address ? address.port : port;
    console.log(`cairn listening on http://${options.host}:${boundPort} (data dir ${dataDir})`);

    const tryStart = (): void => {
      if (stopping) return;
      try {
        controller.start();
        reconciling = true;
        sources.start();
        if (!watching) {
          watching = true;
          for (const w of watches) {
            w.start().catch((error: unknown) => console.error(`Error: ${error instanceof Error ? error.message : String(error)}`));
          }
        }
        console.log(manifests.length > 0 ? 'reconciling' : 'reconciling; apply manifests with: cairn apply -f examples/quickstart');
      } catch (error) {
        if (!(error instanceof LeaseHeldError)) throw error;
        if (error.message !== lastWait) console.log(`waiting: ${error.message}`);
        lastWait = error.message;
        retry = setTimeout(tryStart, LEASE_RETRY_MS);
      }
    };
    tryStart();
    if (manifests.length > 0) applyAtStart(store, manifests, () => stopping);

    await new Promise<void>((resolve) => {
      const shutdown = (): void => {
        if (stopping) return;
        stopping = true;
        clearTimeout(retry);
        console.log('shutting down');
        void Promise.all(watches.map((w) => w.stop()))
          .then(() => sources.stop())
          .then(() => controller.stop())
          .then(() => new Promise<void>((done) => server.close(() => done())))
          .finally(() => {
            void app.drivers.close();
            store.close();
            resolve();
          });
      };
      process.once('SIGINT', shutdown);
      process.once('SIGTERM', shutdown);
    });
  });
}
