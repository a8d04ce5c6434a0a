/**
 * @module The `local` vendor: this host. One region (`local`) and one size (`host`); a Server
 * is the host itself; databases are real PostgreSQL clusters and apps real supervised processes,
 * all kept under `<data dir>/local/`. It takes no credentials.
 */
import type { CloudDriver, DriverConfig, RuntimeDriver, Vendor } from '../contract.js';
import { VendorRejectedError } from '../errors.js';
import { LocalCloudDriver } from './cloud-driver.js';
import { acquireLocalHost } from './local-host.js';
import { LocalRuntimeDriver } from './runtime-driver.js';

function checkConfig(config: DriverConfig): void {
  if (config.spec.endpoint !== undefined && config.spec.endpoint !== '') {
    throw new VendorRejectedError(`Provider/${config.providerName}: the local vendor is this host and takes no spec.endpoint; remove it`, { field: 'endpoint' });
  }
}

export const localVendor: Vendor = {
  id: 'local',
  description: 'This host: real PostgreSQL clusters (from the PostgreSQL binaries installed here) and apps as processes supervised by cairn. Region `local`, size `host`.',
  credentialFields: [],
  async createCloudDriver(config: DriverConfig): Promise<CloudDriver> {
    checkConfig(config);
    const lease = await acquireLocalHost(config.dataDir);
    return new LocalCloudDriver(lease.host, () => lease.release());
  },
  async createRuntimeDriver(config: DriverConfig): Promise<RuntimeDriver> {
    checkConfig(config);
    const lease = await acquireLocalHost(config.dataDir);
    return new LocalRuntimeDriver(lease.host, () => lease.release(), config.dataKeys);
  },
};
