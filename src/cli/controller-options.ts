/**
 * @module The reconcile loop's knobs as the environment sets them (for tests, benchmarks and
 * operators): CAIRN_WORKERS, CAIRN_PER_PROVIDER, CAIRN_POLL_MS, CAIRN_RESYNC_MS,
 * CAIRN_VENDOR_TIMEOUT_MS.
 */
import type { ControllerOptions } from '../reconcile/controller.js';

function positive(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

export function controllerOptionsFromEnv(dataDir: string, env: NodeJS.ProcessEnv = process.env): ControllerOptions {
  const resync = positive(env, 'CAIRN_RESYNC_MS');
  return {
    dataDir,
    workers: positive(env, 'CAIRN_WORKERS'),
    perProvider: positive(env, 'CAIRN_PER_PROVIDER'),
    pollMs: positive(env, 'CAIRN_POLL_MS'),
    requestTimeoutMs: positive(env, 'CAIRN_VENDOR_TIMEOUT_MS'),
    resyncMs: resync === undefined ? undefined : { Provider: resync, Server: resync, Database: resync, App: resync },
  };
}
