/**
 * @module Each tenant's way onto servers over SSH, as a driver pool hands it to its drivers
 * (`DriverConfig.ssh`): the pool's one set of SSH connections, the tenant's runtime key (made on
 * first need; the previous one too while a rotation is in progress) and the host keys the tenant
 * pinned. The connections (and so ssh2) are loaded and made on first use, so a pool that never
 * reaches a server over SSH — `cairn plan`, a sandbox-only serve — loads none of it.
 */
import type { SshAccess } from '../ssh/access.js';
import type { SshConnections } from '../ssh/connection-pool.js';
import type { HostKeyPins } from '../ssh/host-keys.js';
import { RuntimeKeys, type RuntimeKeyStorage } from '../ssh-keys/runtime-key.js';

export interface TenantSshAccessStore extends RuntimeKeyStorage {
  sshHostKeys: { pinsFor(tenant: string): HostKeyPins };
}

export class TenantSshAccess {
  private connections: Promise<SshConnections> | undefined;
  private readonly keys: RuntimeKeys;

  constructor(private readonly store: TenantSshAccessStore) {
    this.keys = new RuntimeKeys(store);
  }

  async forTenant(tenant: string): Promise<SshAccess> {
    this.connections ??= import('../ssh/connection-pool.js').then(({ SshConnections }) => new SshConnections());
    const keys = this.keys;
    return {
      connections: await this.connections,
      pins: this.store.sshHostKeys.pinsFor(tenant),
      identity: () => Promise.resolve({ privateKey: keys.runtimeKey(tenant).privateKey }),
      rotation: () => {
        const { current, previous } = keys.runtimeKeys(tenant);
        return Promise.resolve(previous ? { previous: { privateKey: previous.privateKey, publicKey: previous.publicKey }, currentPublicKey: current.publicKey } : null);
      },
    };
  }

  /** Closes the connections, if any were made. */
  async close(): Promise<void> {
    await (await this.connections)?.close();
  }
}
