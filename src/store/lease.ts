/**
 * @module The reconcile lease: one process at a time reconciles a data dir. A holder renews it
 * before it expires; another process takes it over once it has expired, or at once when the
 * holder was a process on this host that no longer exists (killed with SIGKILL, say).
 */
import { hostname } from 'node:os';
import type { SqlConnection } from './connection.js';
import { nowIso, StatementCache } from './sqlite.js';

export interface LeaseHolder {
  holder: string;
  pid: number;
  host: string;
  acquiredAt: string;
  expiresAt: number;
}

export type LeaseAttempt = { acquired: true } | { acquired: false; heldBy: LeaseHolder };

export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isLive(holder: LeaseHolder, now: number): boolean {
  return holder.expiresAt > now && !(holder.host === hostname() && !processIsAlive(holder.pid));
}

/** A write only the holder of a lease may make, refused: the lease is someone else's, or ran out. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor(readonly lease: string, readonly holder: string, readonly current: LeaseHolder | undefined, now = Date.now()) {
    super(
      `write refused: ${holder} no longer holds the ${lease} lease; ${
        !current ? 'nobody holds it' : current.expiresAt > now ? `it is held by ${current.holder} (pid ${current.pid} on ${current.host})` : `it ran out, last held by ${current.holder}`
      }`,
    );
  }
}

export class Leases {
  private readonly sql: StatementCache;

  /** Counts this connection's writes to the leases (a fence checked before one is checked again). */
  changes = 0;

  constructor(private readonly db: SqlConnection) {
    this.sql = new StatementCache(db);
  }

  current(name: string): LeaseHolder | undefined {
    const row = this.sql.get(`SELECT holder, pid, host, acquired_at, expires_at FROM leases WHERE name = ?`).get(name) as
      | { holder: string; pid: number; host: string; acquired_at: string; expires_at: number }
      | undefined;
    return row && { holder: row.holder, pid: row.pid, host: row.host, acquiredAt: row.acquired_at, expiresAt: row.expires_at };
  }

  /** The holder of a live lease: unexpired, and not a process of this host that has died. */
  activeHolder(name: string): LeaseHolder | undefined {
    const holder = this.current(name);
    return holder && isLive(holder, Date.now()) ? holder : undefined;
  }

  /** Takes the lease if it is free, expired, ours, or held by a dead process on this host. */
  tryAcquire(name: string, holder: string, ttlMs: number): LeaseAttempt {
    this.changes += 1;
    return this.db
      .transaction((): LeaseAttempt => {
        // Read once the write lock is held, not before waiting for it.
        const now = Date.now();
        const existing = this.current(name);
        const free = !existing || existing.holder === holder || !isLive(existing, now);
        if (!free) return { acquired: false, heldBy: existing };
        this.db
          .prepare(
            `INSERT INTO leases (name, holder, pid, host, acquired_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
             ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, host = excluded.host,
               acquired_at = CASE WHEN leases.holder = excluded.holder THEN leases.acquired_at ELSE excluded.acquired_at END,
               expires_at = excluded.expires_at`,
          )
          .run(name, holder, process.pid, hostname(), nowIso(), now + ttlMs);
        return { acquired: true };
      })
      .immediate();
  }

  /** Extends our lease; false when it was lost to someone else. */
  renew(name: string, holder: string, ttlMs: number): boolean {
    this.changes += 1;
    const result = this.sql
      .get(`UPDATE leases SET expires_at = ? WHERE name = ? AND holder = ?`)
      .run(Date.now() + ttlMs, name, holder);
    return result.changes === 1;
  }

  /**
   * Throws LeaseLostError unless `holder` holds the lease and it has not expired by `now`: run in
   * the transaction of a write that only the holder may make, it fences a holder that was paused
   * past its lease out of writing.
   */
  checkHeld(name: string, holder: string, now = Date.now()): void {
    const current = this.current(name);
    if (current?.holder === holder && current.expiresAt > now) return;
    throw new LeaseLostError(name, holder, current, now);
  }

  /**
   * Keeps `holder`'s lease `name` renewed, while unexpired, when the process waits inside the
   * database, where its own renewals cannot run (see SqlConnection.renewWhileBusy); `ttlMs`
   * undefined stops that.
   */
  renewWhileBusy(name: string, holder: string, ttlMs: number | undefined): void {
    this.db.renewWhileBusy?.(
      `lease ${name}`,
      ttlMs === undefined
        ? undefined
        : { ttlMs, statements: [{ sql: `UPDATE leases SET expires_at = @until WHERE name = @name AND holder = @holder AND expires_at > @now`, params: { name, holder } }] },
    );
  }

  release(name: string, holder: string): void {
    this.changes += 1;
    this.renewWhileBusy(name, holder, undefined);
    this.sql.get(`DELETE FROM leases WHERE name = ? AND holder = ?`).run(name, holder);
  }
}
