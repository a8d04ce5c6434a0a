/**
 * @module `cairn serve`: the long-running control plane on embedded defaults — reconciles the
 * data dir (waiting for the lease if another process holds it), syncs its git sources and the
 * directories given with `--watch` while it holds the lease, and serves the REST API, the
 * Kubernetes API for kubectl, health and metrics, over HTTP or (--tls) HTTPS. With
 * --kubernetes it is a controller of a cluster's custom resources, reconciling while it leads.
 * On a shared store (CAIRN_STORE=postgres://…) every replica serves and reconciles its share of
 * the shards, and what runs once per cluster runs on the holder of the singletons lease.
 */
import { dashboardBuilt, defaultDashboardDir } from '../../api/dashboard-assets.js';
import { statSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { Command } from 'commander';
import { Controller, LeaseHeldError } from '../../reconcile/controller.js';
import { SHARD_LEASE_TTL_MS } from '../../reconcile/shard-ownership.js';
import { MIGRATIONS } from '../../store/migrate.js';
import { storeEngineOf } from '../../store/open-connection.js';
import { Store } from '../../store/store.js';
import { CliError } from '../cli-error.js';
import { controllerOptionsFromEnv } from '../controller-options.js';
import { addDataDirOption, resolveDataDir } from '../data-dir.js';
import { readManifests } from '../manifest-input.js';
import { applyAtStart } from '../apply-at-start.js';
import { DEFAULT_TENANT } from '../../model/resource.js';
import type { Cluster } from '../../sources/kubernetes/cluster.js';
import { SourceSyncLoop } from '../../sources/sync-loop.js';
import { SourceSyncer } from '../../sources/source-sync.js';
import { DirectoryWatch } from '../../sources/directory-watch.js';
import { currentOutboundPolicy } from '../../net/outbound-policy.js';
import { LOCAL_VENDOR_TENANTS_SETTING } from '../../security/host-access.js';
import { serveTerminalUpgrades } from '../../api/terminal/terminal-upgrade.js';
import { AlertLoops } from '../../alerts/alert-loops.js';
import { AlertSettingError } from '../../alerts/alert-settings.js';
import { EventWebhookLoop } from '../../event-webhooks/event-webhook-loop.js';
import { ClusterSingletons, singletonsFence, type SingletonDuties } from '../cluster-singletons.js';
import { fencedStore } from '../../reconcile/fenced-store.js';

interface ServeOptions {
  apply?: string[];
  port?: string;
  host: string;
  dataDir?: string;
  watch?: string[];
  tls?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  kubernetes?: boolean;
  kubeconfig?: string;
  namespace?: string;
  localVendorTenants?: string;
  store?: string;
}

const LEASE_RETRY_MS = 2_000;
const SHUTDOWN_GRACE_MS = 2_000;

/** The cluster of controller mode, or a CliError saying why the kubeconfig cannot be used. */
async function openCluster(kubeconfig: string | undefined): Promise<Cluster> {
  // The Kubernetes client takes about half a second to load: only controller mode pays for it.
  const { clusterFrom, loadKubeConfig } = await import('../../sources/kubernetes/cluster.js');
  try {
    return clusterFrom(loadKubeConfig(kubeconfig));
  } catch (error) {
    throw new CliError(`--kubernetes: cannot use the kubeconfig ${kubeconfig ?? '(default: KUBECONFIG, ~/.kube/config or in-cluster)'}: ${(error as Error).message}`);
  }
}

export function registerServeCommand(program: Command): void {
  addDataDirOption(
    program
      .command('serve')
      .description('run the control plane: reconcile the data dir and serve HTTP')
      .option('--port <port>', 'HTTP port (env PORT; default 8080)')
      .option('--host <host>', 'address to listen on', '127.0.0.1')
      .option('--tls', 'serve HTTPS (needed for kubectl --token); a self-signed certificate is made in <data dir>/tls/ unless --tls-cert/--tls-key are given')
      .option('--tls-cert <file>', 'PEM certificate to serve HTTPS with (implies --tls)')
      .option('--tls-key <file>', 'PEM private key of --tls-cert')
      .option('--kubernetes', 'controller mode: reconcile cairn.dev custom resources of a Kubernetes cluster (leader election through a Lease)')
      .option('--kubeconfig <file>', 'kubeconfig for --kubernetes (default: KUBECONFIG, ~/.kube/config, or the in-cluster service account)')
      .option('--namespace <ns>', 'with --kubernetes: watch only this namespace (the Lease lives there too)')
      .option('--apply <path...>', 'apply these manifests at start (as `cairn apply --auto-approve` would) and report their progress')
      .option('--local-vendor-tenants <tenants>', `comma list of tenants (names or ids) that may use the local vendor, which runs their apps on this host (env ${LOCAL_VENDOR_TENANTS_SETTING}; default: default)`)
      .option('--store <where>', "where the state lives: sqlite (in the data dir) or a postgres:// URL that several cairn replicas share (env CAIRN_STORE; default sqlite)")
      .option('--watch <dir...>', 'apply the manifests in these directories, and again whenever they change (development; prunes what disappears)'),
  ).action(async (options: ServeOptions) => {
    // The flag mirrors the setting: every part of cairn reads the setting.
    if (options.localVendorTenants !== undefined) process.env[LOCAL_VENDOR_TENANTS_SETTING] = options.localVendorTenants;
    if (options.store !== undefined) process.env.CAIRN_STORE = options.store;
    try {
      storeEngineOf(process.env.CAIRN_STORE);
    } catch (error) {
      throw new CliError((error as Error).message);
    }
    try {
      currentOutboundPolicy();
    } catch (error) {
      throw new CliError((error as Error).message);
    }
    const port = Number(options.port ?? process.env.PORT ?? 8080);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be a port number (0-65535), got "${options.port}"`);
    if ((options.kubeconfig !== undefined || options.namespace !== undefined) && options.kubernetes !== true) {
      throw new CliError('--kubeconfig and --namespace go with --kubernetes (controller mode)');
    }
    for (const dir of options.watch ?? []) {
      if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new CliError(`--watch ${dir}: no such directory`);
    }
    const cluster = options.kubernetes === true ? await openCluster(options.kubeconfig) : undefined;
    const dataDir = resolveDataDir(options.dataDir);
    const store = Store.open(dataDir);
    const manifests = options.apply ? await readManifests(options.apply, store) : [];
    const controllerOptions = controllerOptionsFromEnv(dataDir);
    // Replicas on a shared store share reconciling by shard leases (controller mode elects one
    // leader through a Kubernetes Lease instead).
    const sharded = cluster === undefined && store.engine === 'postgres';
    const makeController = (): Controller =>
      new Controller(store, {
        ...controllerOptions,
        sharded,
        onReconciled: (resource, outcome, durationMs) => app.reconcileMetrics.onReconciled(resource, outcome, durationMs),
        onFenced: (resource, error) => console.error(`${resource.kind}/${resource.name}: ${error.message}; leaving it to that replica`),
        onLeaseError: (error) => console.error(`shard leases: ${error instanceof Error ? error.message : String(error)}; trying again`),
        onLeaseLost: () => {
          reconciling = false;
          void clusterDuties.stop();
          console.error('lost the reconcile lease to another process; waiting to take it back');
          controller = makeController();
          retry = setTimeout(tryStart, LEASE_RETRY_MS);
        },
      });
    let controller = makeController();
    // Sharded, the once-per-cluster duties write only while this replica holds the singletons lease.
    const singletonsHolder = controller.holderId;
    const dutyStore = sharded ? fencedStore(store, singletonsFence(store.leases, singletonsHolder)) : store;
    let reconciling = false;
    let stopping = false;
    let retry: NodeJS.Timeout | undefined;
    let lastWait = '';
    // Git sources sync in the process that reconciles: started and stopped with the lease.
    const sources = new SourceSyncLoop(dutyStore, new SourceSyncer(dutyStore, dataDir, () => controller.readFeed()), {
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

    // The API (express, auth, metrics, OpenAPI validation) is loaded only when serve runs.
    const { buildApi } = await import('../serve-api.js');
    const app = await buildApi(store, dataDir, controllerOptions, {
      readiness: {
        storeWritable: () => store.isWritable(),
        reconciling: () => reconciling,
        ...(sharded ? { shards: () => controller.heldShards().map((held) => held.shard) } : {}),
      },
      controller: () => controller,
      // Asked of any replica (a push webhook, POST /sync): recorded in the store, unfenced, for
      // whichever replica runs the sync loop; here at once when that is this one.
      requestSourceSync: (id) => {
        store.sources.requestSync(id);
        sources.scanNow();
      },
    });
    // Alert rules are evaluated, and their notifications sent, by the process that reconciles.
    let alerts: AlertLoops;
    try {
      alerts = new AlertLoops(dutyStore, app.drivers, app.metrics, { gaugeStore: store });
    } catch (error) {
      if (error instanceof AlertSettingError) throw new CliError(error.message);
      throw error;
    }
    // Event webhooks too: what the event log records is dispatched and sent by the lease holder.
    const eventWebhooks = new EventWebhookLoop(dutyStore, app.metrics);
    // What runs once per cluster: in the process that reconciles or, sharded, on one replica.
    const clusterDuties: SingletonDuties = {
      start: () => {
        sources.start();
        alerts.start();
        // Migrations interrupted by a stop or a crash (of any replica) continue where they were, without an API key.
        const resumed = app.migrations.runner.keepResuming();
        if (resumed > 0) console.log(`resuming ${resumed} unfinished migration${resumed === 1 ? '' : 's'}`);
        eventWebhooks.start();
      },
      stop: async () => {
        app.migrations.runner.stopResuming();
        await sources.stop();
        await alerts.stop();
        await eventWebhooks.stop();
      },
    };
    const singletons = sharded
      ? new ClusterSingletons(store.leases, singletonsHolder, controllerOptions.leaseTtlMs ?? SHARD_LEASE_TTL_MS, clusterDuties, (line) => console.log(line))
      : undefined;
    const tls = options.tls === true || options.tlsCert !== undefined || options.tlsKey !== undefined
      ? await (await import('../serve-tls.js')).tlsIdentity(dataDir, options.host, { cert: options.tlsCert, key: options.tlsKey })
      : undefined;
    const server: Server = await new Promise((resolve, reject) => {
      const s: Server = tls ? createHttpsServer({ cert: tls.cert, key: tls.key }, app.express) : createHttpServer(app.express);
      // WebSockets: the terminal's path only (every other upgrade is refused).
      serveTerminalUpgrades(s, app.express);
      s.listen(port, options.host, () => resolve(s));
      s.once('error', (error: NodeJS.ErrnoException) =>
        reject(new CliError(error.code === 'EADDRINUSE' ? `port ${port} on ${options.host} is already in use; choose another with --port` : error.message)),
      );
    });
    const address = server.address();
    const boundPort = typeof address === 'object' && address ? address.port : port;
    const scheme = tls ? 'https' : 'http';
    console.log(`cairn listening on ${scheme}://${options.host}:${boundPort} (data dir ${dataDir})`);
    console.log(dashboardBuilt(defaultDashboardDir())
      ? `dashboard: ${scheme}://${options.host === '0.0.0.0' ? '127.0.0.1' : options.host}:${boundPort}/`
      : 'dashboard: not built (run npm run build to serve it at /)');
    if (tls) {
      console.log(`${tls.generated ? 'generated a self-signed TLS certificate' : 'TLS certificate'}: ${tls.certPath}`);
      console.log(`kubectl: kubectl --server ${scheme}://${options.host}:${boundPort} --certificate-authority ${tls.certPath} --token <API token> get servers`);
    }

    const tryStart = (): void => {
      if (stopping) return;
      try {
        controller.start();
        reconciling = true;
        if (singletons) singletons.start();
        else clusterDuties.start();
        if (!watching) {
          watching = true;
          for (const w of watches) {
            w.start().catch((error: unknown) => console.error(`Error: ${error instanceof Error ? error.message : String(error)}`));
          }
        }
        const how = sharded ? 'reconciling a share of the shards with the other replicas' : 'reconciling';
        console.log(manifests.length > 0 ? how : `${how}; apply manifests with: cairn apply -f examples/quickstart`);
      } catch (error) {
        if (!(error instanceof LeaseHeldError)) throw error;
        if (error.message !== lastWait) console.log(`waiting: ${error.message}`);
        lastWait = error.message;
        retry = setTimeout(tryStart, LEASE_RETRY_MS);
      }
    };
    const { KubernetesMode } = cluster ? await import('../../sources/kubernetes/kubernetes-mode.js') : { KubernetesMode: undefined };
    const kubernetes = cluster && KubernetesMode
      ? new KubernetesMode(store, cluster, { namespace: options.namespace, tenant: DEFAULT_TENANT }, {
          startReconciling: tryStart,
          stopReconciling: async () => {
            clearTimeout(retry);
            const stopped = controller;
            controller = makeController();
            reconciling = false;
            await clusterDuties.stop();
            await stopped.stop();
          },
          afterWrite: () => controller.readFeed(),
          log: (line) => console.log(line),
        })
      : undefined;
    // In controller mode only the Lease holder reconciles; it starts when it leads.
    if (kubernetes) kubernetes.start();
    else tryStart();
    if (manifests.length > 0) applyAtStart(store, manifests, () => stopping);

    await new Promise<void>((resolve) => {
      let schemaWatch: NodeJS.Timeout | undefined;
      const shutdown = (): void => {
        if (stopping) return;
        stopping = true;
        clearTimeout(retry);
        clearInterval(schemaWatch);
        console.log('shutting down');
        // Terminal sessions end with the server: their shells are closed, their WebSockets told.
        app.terminals.sessions.closeAll();
        void Promise.all(watches.map((w) => w.stop()))
          .then(() => singletons?.stop())
          .then(() => sources.stop())
          .then(() => alerts.stop())
          .then(() => alerts.close())
          .then(() => eventWebhooks.stop())
          .then(() => (kubernetes ? kubernetes.stop() : undefined))
          .then(() => app.migrations.runner.stop())
          .then(() => controller.stop())
          .then(
            () =>
              new Promise<void>((done) => {
                server.close(() => done());
                // Watches (kubectl get -w, informers) stream until their client goes: end them after a grace period.
                setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
              }),
          )
          // Drivers stop what runs inside this process (the local vendor's apps) before it exits.
          .finally(() => app.drivers.close())
          .finally(() => {
            store.close();
            resolve();
          });
      };
      process.once('SIGINT', shutdown);
      process.once('SIGTERM', shutdown);
      // A replica of a newer release migrated the shared store: this one's statements no longer
      // fit it, so it stops (its supervisor restarts it on the new release).
      if (sharded) {
        schemaWatch = setInterval(() => {
          try {
            const version = store.schemaVersion();
            if (version <= MIGRATIONS.length) return;
            console.error(`the store's schema is at version ${version}, newer than this cairn knows (${MIGRATIONS.length}): another replica runs a newer release; stopping this one, upgrade it`);
            process.exitCode = 1;
            shutdown();
          } catch {
            // The store busy: the next look tries again.
          }
        }, SHARD_LEASE_TTL_MS);
        schemaWatch.unref();
      }
    });
  });
}
