/**
 * @module How a Provider's drivers reach servers over SSH: the process's pooled connections,
 * the tenant's own runtime identity (cairn's key for that tenant, installed on every server it
 * creates), and the host keys that tenant pinned. The driver pool builds one per Provider.
 */
import type { SshConnections, SshIdentity, SshTarget } from './connection-pool.js';
import type { HostKeyPins } from './host-keys.js';
import type { SshSession } from './session.js';

export interface SshAccess {
  readonly connections: SshConnections;
  /** The tenant's current runtime key (made on first need). */
  identity(): Promise<SshIdentity>;
  readonly pins: HostKeyPins;
}

/** A session on `target` as the tenant's runtime identity. */
export async function sessionOn(access: SshAccess, target: SshTarget): Promise<SshSession> {
  return access.connections.session(target, await access.identity(), access.pins);
}
