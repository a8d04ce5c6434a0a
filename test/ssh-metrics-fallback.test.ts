/**
 * Metrics over SSH for a vendor that reports none (src/drivers/ssh/ssh-metrics.ts): the cloud
 * driver's `metrics` finds the server's address by observing it and reads /proc there over SSH
 * (a real sshd on loopback stands for the server); a vendor that reports metrics, or a pool
 * without SSH access, keeps its own; an unreachable server is a retryable failure naming both
 * reasons. The vendor side here is a minimal cloud driver (only observe matters): what is under
 * test is the SSH path.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CloudDriver, ServerObserved } from '../src/drivers/contract.js';
import { UnsupportedError, VendorUnavailableError } from '../src/drivers/errors.js';
import { withSshMetrics } from '../src/drivers/ssh/ssh-metrics.js';
import { startSshRuntimeFixture, type SshRuntimeFixture } from './support/ssh-runtime-fixture.js';


/** A vendor without a metrics API whose one server, `srv-1`, has the address 127.0.0.1. */
function vendorWithoutMetrics(): CloudDriver {
  const server: ServerObserved = { id: 'srv-1', name: 'web-1', clientToken: 'k', region: 'r', size: 's', image: 'debian-12', status: 'running', ipv4: '127.0.0.1', ipv6: null };
  const refuse = (): Promise<never> => Promise.reject(new UnsupportedError('not part of this test'));
  return {
    vendor: 'nometrics',
    metricsUnsupported: 'its API has no metrics',
    servers: { observe: (ref) => Promise.resolve(ref.externalId === 'srv-1' ? server : null), create: refuse, update: refuse, delete: refuse },
    power: refuse, regions: refuse, sizes: refuse, testCredentials: refuse,
    metrics: () => Promise.reject(new UnsupportedError('nometrics reports no metrics: its API has no metrics')),
    close: () => Promise.resolve(),
  };
}

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

describe('server metrics over SSH when the vendor has none', () => {
  let fx: SshRuntimeFixture;

  beforeAll(async () => {
    fx = await startSshRuntimeFixture('nometrics');
  });

  afterAll(async () => {
    await fx?.cleanup();
  });

  it('reads /proc on the server\'s address over SSH', async () => {
    const driver = withSshMetrics(vendorWithoutMetrics(), fx.access, { targetFor: (_id, address) => ({ host: address ?? '', port: fx.target.port, user: fx.target.user }) });
    expect(driver.metricsUnsupported).toBeUndefined();
    const metrics = await driver.metrics('srv-1');
    expect(metrics.simulated).toBe(false);
    expect(metrics.memoryPercent).toBeGreaterThan(0);
    expect(metrics.diskPercent).toBeGreaterThan(0);
    await expect(driver.metrics('srv-gone')).rejects.toThrow('server srv-gone does not exist at nometrics');
    expect(driver.vendor).toBe('nometrics');
  });

  it('leaves a driver as it is without SSH access, or when its vendor reports metrics', async () => {
    const vendor = vendorWithoutMetrics();
    expect(withSshMetrics(vendor, undefined)).toBe(vendor);
    const measured = { ...vendor, metricsUnsupported: undefined };
    expect(withSshMetrics(measured, fx.access)).toBe(measured);
    await expect(withSshMetrics(vendor, undefined).metrics('srv-1')).rejects.toBeInstanceOf(UnsupportedError);
  });

  it('fails retryably, naming both reasons, when the server cannot be reached', async () => {
    const port = await closedPort();
    const driver = withSshMetrics(vendorWithoutMetrics(), fx.access, { targetFor: (_id, address) => ({ host: address ?? '', port, user: fx.target.user }) });
    const error = await driver.metrics('srv-1').then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(VendorUnavailableError);
    expect((error as Error).message).toMatch(/^nometrics reports no metrics \(its API has no metrics\), and reading \/proc over SSH failed: .*connection refused/);
  });
});
