/**
 * @module The reconcile loop's knobs as the environment sets them (for tests, benchmarks and
 * operators): CAIRN_WORKERS, CAIRN_PER_PROVIDER, CAIRN_POLL_MS, CAIRN_RESYNC_MS (and per kind
 * CAIRN_RESYNC_MS_PROVIDER, _SSHKEY, _SERVER, _DATABASE, _APP, _ALERTRULE, which win over it), CAIRN_VENDOR_TIMEOUT_MS (one
 * HTTP request), and the deadlines of whole driver calls: CAIRN_DRIVER_TIMEOUT_OBSERVE_SECONDS,
 * _WRITE_SECONDS and _LONG_SECONDS (see reconcile/call-deadlines.ts).
 */
import { callDeadlinesFromEnv } from '../reconcile/call-deadlines.js';
import type { ControllerOptions } from '../reconcile/controller.js';
import { KINDS, type Kind } from '../model/kinds.js';

function positive(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

export function controllerOptionsFromEnv(dataDir: string, env: NodeJS.ProcessEnv = process.env): ControllerOptions {
  const resync = positive(env, 'CAIRN_RESYNC_MS');
  const resyncMs: Partial<Record<Kind, number>> = {};
  for (const kind of KINDS) {
    const value = positive(env, `CAIRN_RESYNC_MS_${kind.toUpperCase()}`) ?? resync;
    if (value !== undefined) resyncMs[kind] = value;
  }
  return {
    dataDir,
    workers: positive(env, 'CAIRN_WORKERS'),
    perProvider: positive(env, 'CAIRN_PER_PROVIDER'),
    pollMs: positive(env, 'CAIRN_POLL_MS'),
    requestTimeoutMs: positive(env, 'CAIRN_VENDOR_TIMEOUT_MS'),
    deadlines: callDeadlinesFromEnv(env),
    resyncMs: Object.keys(resyncMs).length === 0 ? undefined : resyncMs,
  };
}
