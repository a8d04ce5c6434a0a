/**
 * @module The `ssh` vendor: servers are existing hosts the tenant owns (bring your own), reached
 * over SSH as `spec.user` on `spec.host:spec.port` with cairn's runtime key for the tenant. It has
 * no region catalogue and takes no credentials; it needs the SSH access the driver pool gives
 * (`DriverConfig.ssh`).
 */
import type { CloudDriver, DriverConfig, RuntimeDriver, Vendor } from '../contract.js';
import { UnsupportedError, VendorRejectedError } from '../errors.js';
import type { SshAccess } from '../../ssh/access.js';
import { SSH_VENDOR } from '../../model/server-vendor-fields.js';
import { sshRuntimeFor } from '../kit/ssh-runtime.js';

function accessOf(config: DriverConfig): SshAccess {
  if (config.spec.endpoint !== undefined && config.spec.endpoint !== '') {
    throw new VendorRejectedError(`Provider/${config.providerName}: the ssh vendor reaches each server's own host and takes no spec.endpoint; remove it`, { field: 'endpoint' });
  }
  if (!config.ssh) throw new UnsupportedError(`Provider/${config.providerName}: this cairn gives its drivers no SSH access (DriverConfig.ssh), so it cannot reach hosts of the ssh vendor`);
  return config.ssh;
}

export const sshVendor: Vendor = {
  id: SSH_VENDOR,
  description:
    'Bring your own servers: each Server is an existing host (spec.host, spec.port, spec.user) that cairn reaches over SSH with its own runtime key for your tenant ' +
    '(GET /ssh-keys/runtime; put it in that user\'s authorized_keys). No regions, sizes or credentials; deleting a Server forgets the host and leaves it as it is.',
  credentialFields: [],
  // The driver and its SSH modules (ssh2) are loaded when a driver is first made, not with the registry.
  async createCloudDriver(config: DriverConfig): Promise<CloudDriver> {
    const access = accessOf(config);
    const [{ SshCloudDriver }, { SshHosts }, { RuntimeIndex }] = await Promise.all([import('./cloud-driver.js'), import('./hosts.js'), import('./runtime-index.js')]);
    return new SshCloudDriver({ access, hosts: new SshHosts(access), index: RuntimeIndex.of(config.dataDir) });
  },
  async createRuntimeDriver(config: DriverConfig): Promise<RuntimeDriver> {
    accessOf(config);
    return sshRuntimeFor(SSH_VENDOR, config);
  },
};
