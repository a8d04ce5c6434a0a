/**
 * @module The SSH host keys pinned per tenant (trust on first use; see src/ssh/host-keys.ts).
 * `pinsFor(tenant)` is what the SSH transport reads and writes; the first pin of a host wins
 * (a concurrent writer's pin is kept, and the transport compares against it).
 */
import type { SqlConnection } from './connection.js';
import { nowIso, StatementCache } from './sqlite.js';

export interface SshHostKeyRecord {
  hostId: string;
  fingerprint: string;
  firstSeen: string;
}

/** The pins of one tenant, in the shape the SSH transport takes (HostKeyPins). */
export interface TenantHostKeyPins {
  pinned(hostId: string): string | undefined;
  pin(hostId: string, fingerprint: string): void;
  acceptHint(hostId: string): string;
}

export class SshHostKeys {
  private readonly sql: StatementCache;

  constructor(db: SqlConnection) {
    this.sql = new StatementCache(db);
  }

  get(tenant: string, hostId: string): SshHostKeyRecord | undefined {
    const row = this.sql
      .get(`SELECT host_id, fingerprint, first_seen FROM ssh_host_keys WHERE tenant = ? AND host_id = ?`)
      .get(tenant, hostId) as { host_id: string; fingerprint: string; first_seen: string } | undefined;
    return row && { hostId: row.host_id, fingerprint: row.fingerprint, firstSeen: row.first_seen };
  }

  /** Pins `fingerprint` for `hostId` unless the tenant has a pin for it already. */
  pin(tenant: string, hostId: string, fingerprint: string): void {
    this.sql
      .get(`INSERT INTO ssh_host_keys (tenant, host_id, fingerprint, first_seen) VALUES (?, ?, ?, ?) ON CONFLICT (tenant, host_id) DO NOTHING`)
      .run(tenant, hostId, fingerprint, nowIso());
  }

  /** Forgets the pin, so that the host's next key is trusted on first use; true when there was one. */
  remove(tenant: string, hostId: string): boolean {
    return this.sql.get(`DELETE FROM ssh_host_keys WHERE tenant = ? AND host_id = ?`).run(tenant, hostId).changes > 0;
  }

  pinsFor(tenant: string): TenantHostKeyPins {
    return {
      pinned: (hostId) => this.get(tenant, hostId)?.fingerprint,
      pin: (hostId, fingerprint) => this.pin(tenant, hostId, fingerprint),
      acceptHint: (hostId) =>
        `delete the pin so the next key is trusted on first use: the row (tenant ${JSON.stringify(tenant)}, host_id ${JSON.stringify(hostId)}) ` +
        `of table ssh_host_keys in the state database (cairn has no command for this yet)`,
    };
  }
}
