/**
 * @module Server metrics over SSH for vendors that report none: a cloud driver whose vendor has
 * no metrics API (`metricsUnsupported`) gets a `metrics` that finds the server's address (its
 * `observe`), reaches it over SSH as the SSH runtime does (root@address:22 with cairn's runtime
 * key, or the bring-your-own target its id names), and reads /proc there (`readProcMetrics`).
 * The driver pool applies it where it has the tenant's SSH access (`DriverConfig.ssh`); without
 * that access the driver stays as it was, refusing metrics with its reason.
 */
import type { CallOptions, CloudDriver, ServerMetrics } from '../contract.js';
import { UnsupportedError, VendorRejectedError, VendorUnavailableError } from '../errors.js';
import { sessionOn, type SshAccess } from '../../ssh/access.js';
import type { SshTarget } from '../../ssh/connection-pool.js';
import { readProcMetrics } from '../../ssh/proc-metrics.js';
import { sshFailure } from './cloud-driver.js';
import { targetLabel } from './hosts.js';
import { serverTarget } from './server-target.js';

export interface SshMetricsOptions {
  /** How a server is reached (default `serverTarget`: root@its address:22, or its ssh: id's target). */
  targetFor?: (serverExternalId: string, address: string | null) => SshTarget;
}

/** `driver`, its metrics read over SSH when its vendor reports none; the same driver when it does. */
export function withSshMetrics(driver: CloudDriver, access: SshAccess | undefined, options: SshMetricsOptions = {}): CloudDriver {
  const why = driver.metricsUnsupported;
  if (why === undefined || access === undefined) return driver;
  const targetFor = options.targetFor ?? serverTarget;
  const metrics = async (externalId: string, callOptions?: CallOptions): Promise<ServerMetrics> => {
    const server = await driver.servers.observe({ key: '', externalId }, callOptions);
    if (!server) throw new UnsupportedError(`server ${externalId} does not exist at ${driver.vendor}, so it has no metrics`);
    const target = targetFor(externalId, server.ipv4 ?? server.ipv6);
    try {
      return await readProcMetrics(await sessionOn(access, target), { signal: callOptions?.signal });
    } catch (error) {
      const failure = sshFailure(error, targetLabel(target));
      const message = `${driver.vendor} reports no metrics (${why}), and reading /proc over SSH failed: ${failure.message}`;
      throw failure instanceof VendorUnavailableError ? new VendorUnavailableError(message, { cause: error }) : new VendorRejectedError(message, { cause: error });
    }
  };
  return new Proxy(driver, {
    get(target, property, receiver) {
      if (property === 'metricsUnsupported') return undefined;
      if (property === 'metrics') return metrics;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
