/**
 * @module What the SSH runtime's two halves (databases.ts, apps.ts) are built from: the hosts
 * they reach, where a placement's server is reached (`targetFor`), the index of what was
 * placed where, the data dir (backups) and the data-key wrapper that seals backups at rest.
 */
import type { Placement } from '../contract.js';
import type { SshTarget } from '../../ssh/connection-pool.js';
import type { DataKeyWrapper } from '../../secrets/sealed-stream.js';
import type { SshHosts } from './hosts.js';
import type { RuntimeIndex } from './runtime-index.js';

export interface SshRuntimeOptions {
  /** The vendor whose servers these are (`ssh`, `hetzner`, ...), for messages. */
  vendor: string;
  dataDir: string;
  hosts: SshHosts;
  index: RuntimeIndex;
  /** How the server a thing is placed on is reached; throws (VendorRejectedError) when it cannot be yet (no address). */
  targetFor(placement: Placement): SshTarget;
  dataKeys: DataKeyWrapper;
}
