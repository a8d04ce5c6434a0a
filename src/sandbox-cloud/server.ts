/**
 * @module Starting and stopping the sandbox cloud: opens its SQLite file, listens on loopback,
 * and on close drops held requests, closes every connection and then the database.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSandboxApp } from './app.js';
import { FaultInjector } from './fault-injection.js';
import { resolveSandboxOptions, type SandboxCloudOptions, type SandboxFaults } from './options.js';
import { RequestStats, type SandboxStats } from './request-stats.js';
import { createRandom } from './seeded-random.js';
import { SandboxStore } from './store/sandbox-store.js';

export interface SandboxCloud {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  port: number;
  close(): Promise<void>;
  /** Changes fault knobs at runtime; throws a RangeError on a bad value. */
  setFaults(change: Partial<SandboxFaults>): void;
  stats(): SandboxStats;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Starts a sandbox cloud; its state lives in `<dataDir>/sandbox-cloud.db` and outlives the process. */
export async function startSandboxCloud(options: SandboxCloudOptions): Promise<SandboxCloud> {
  const resolved = resolveSandboxOptions(options);
  const store = new SandboxStore(resolved.dataDir);
  const stats = new RequestStats();
  const faults = new FaultInjector(resolved.faults, createRandom(resolved.seed), stats);
  const app = createSandboxApp({ store, stats, faults, token: resolved.token, provisionMs: resolved.provisionMs, now: Date.now });
  const server = createServer(app);
  let port: number;
  try {
    port = await listen(server, resolved.port, resolved.host);
  } catch (error) {
    store.close();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`sandbox cloud: cannot listen on ${resolved.host}:${resolved.port}: ${reason}`, { cause: error });
  }

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve, reject) => {
      faults.close();
      server.close((error) => {
        store.close();
        if (error) reject(error);
        else resolve();
      });
      server.closeAllConnections();
    });
    return closing;
  };

  return {
    url: `http://${resolved.host}:${port}`,
    port,
    close,
    setFaults: (change) => faults.set(change),
    stats: () => stats.snapshot(),
  };
}
