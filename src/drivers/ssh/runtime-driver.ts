/**
 * @module The SSH runtime: databases (SshDatabases) and apps (SshApps) on any server cairn
 * reaches over SSH — a bring-your-own host of the `ssh` vendor, or a server a cloud vendor made
 * (reached as root on its address with the tenant's runtime key, which went into its user data).
 * Every vendor whose servers can carry databases and apps builds its runtime here.
 */
import type { DriverConfig, RuntimeDriver } from '../contract.js';
import { UnsupportedError } from '../errors.js';
import { SshApps } from './apps.js';
import { SshDatabases } from './databases.js';
import { SshHosts } from './hosts.js';
import { RuntimeIndex } from './runtime-index.js';
import { serverTarget } from './server-target.js';

/** The SSH runtime for `vendor`'s servers; refused plainly when this cairn gives drivers no SSH access. */
export function sshRuntimeDriver(vendor: string, config: DriverConfig): RuntimeDriver {
  if (!config.ssh) {
    throw new UnsupportedError(`Provider/${config.providerName}: databases and apps on ${vendor} servers run over SSH, and this cairn process was started without SSH access for drivers`);
  }
  const options = {
    vendor,
    dataDir: config.dataDir,
    hosts: new SshHosts(config.ssh),
    index: RuntimeIndex.of(config.dataDir),
    targetFor: (placement: { serverExternalId: string; serverAddress: string | null }) => serverTarget(placement.serverExternalId, placement.serverAddress),
    dataKeys: config.dataKeys,
  };
  const databases = new SshDatabases(options);
  const apps = new SshApps(options);
  return {
    vendor,
    databases,
    apps,
    async close() {
      await Promise.allSettled([databases.close(), apps.close()]);
    },
  };
}
