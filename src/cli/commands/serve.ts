/**
 * @module `cairn serve`: the long-running control plane on embedded defaults — reconciles the
 * data dir (waiting for the lease if another process holds it) and serves the REST API,
 * health and metrics.
 */
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

interface ServeOptions {
  apply?: string[];
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
      .option('--apply <path...>', 'apply these manifests at start (as `cairn apply --auto-approve` would) and report their progress'),
  ).action(async (options: ServeOptions) => {
    const port = Number(options.port ?? process.env.PORT ?? 8080);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be a port number (0-65535), got "${options.port}"`);
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
          console.error('lost the reconcile lease to another process; waiting to take it back');
          controller = makeController();
          retry = setTimeout(tryStart, LEASE_RETRY_MS);
        },
      });
    let controller = makeController();
    let reconciling = false;
    let stopping = false;
    let retry: NodeJS.Timeout | undefined;
    let lastWait = '';

    const app = await buildApi(store, dataDir, controllerOptions, {
      readiness: { storeWritable: () => store.isWritable(), reconciling: () => reconciling },
      controller: () => controller,
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
        void controller
          .stop()
          .then(() => new Promise<void>((done) => server.close(() => done())))
          // Drivers stop what runs inside this process (the local vendor's apps) before it exits.
          .finally(() => app.drivers.close())
          .finally(() => {
            store.close();
            resolve();
          });
      };
      process.once('SIGINT', shutdown);
      process.once('SIGTERM', shutdown);
    });
  });
}
