/**
 * @module Shard leases: several replicas share reconciling one store, each holding leases on its
 * fair share of the uid space's shards. A lease carries a fencing token that grows at every new
 * holding, and every write a reconcile makes checks it (`checkFence`), so a replica whose lease
 * expired — paused past its TTL, say — writes nothing once another has taken the shard.
 */
import { hostname } from 'node:os';
import type { SqlConnection } from './connection.js';
import { processIsAlive, type LeaseHolder } from './lease.js';
import { nowIso, StatementCache } from './sqlite.js';

/** How many shards the uid space is cut into. */
export const SHARDS = 32;

/** The shard a resource belongs to: FNV-1a (32 bits) of its uid, modulo `shards`; the same in every process. */
export function shardOf(uid: string, shards = SHARDS): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < uid.length; i++) {
    hash ^= uid.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
}

/** A shard this replica holds, and the token its writes are fenced with. */
export interface HeldShard {
  shard: number;
  token: number;
}

export interface ShardLease extends HeldShard {
  holder: string;
  pid: number;
  host: string;
  acquiredAt: string;
  /** Epoch milliseconds; the lease is free from then on. */
  expiresAt: number;
}

/** What one lease pass did: `held` is what the replica holds after it. */
export interface LeasePass {
  held: HeldShard[];
  gained: HeldShard[];
  /** Shards whose renewal failed: another replica holds them now (or took and gave them back). */
  lost: number[];
  /** Shards given back because this replica held more than its fair share. */
  handedBack: number[];
  /** When the pass ran (epoch ms): its leases run until this plus the TTL. */
  at: number;
}

/** A replica that was a process of this host and no longer exists. */
function diedOnThisHost(replica: { pid: number; host: string }): boolean {
  return replica.host === hostname() && !processIsAlive(replica.pid);
}

/** A write refused because the writer no longer holds the shard's lease under that token. */
export class FencedWriteError extends Error {
  override readonly name = 'FencedWriteError';
  constructor(readonly shard: number, readonly holder: string, readonly token: number, readonly current: ShardLease | undefined, now = Date.now()) {
    super(`write refused: ${holder} no longer holds shard ${shard} (its token ${token}); ${describeLease(current, now)}`);
  }
}

function describeLease(lease: ShardLease | undefined, now: number): string {
  if (!lease) return 'no replica has held it';
  const who = `${lease.holder} (pid ${lease.pid} on ${lease.host}) with token ${lease.token}`;
  return lease.expiresAt > now ? `it is held by ${who}` : `it was last held by ${who}, and has expired`;
}

interface LeaseRow {
  shard: number;
  holder: string;
  pid: number;
  host: string;
  token: number;
  acquired_at: string;
  expires_at: number;
}

export class ShardLeases {
  private readonly sql: StatementCache;

  /** Counts this connection's writes to the leases (a fence checked before one is checked again). */
  changes = 0;

  constructor(private readonly db: SqlConnection, readonly shards = SHARDS) {
    this.sql = new StatementCache(db);
  }

  /** Says this replica is live until `now + ttlMs` (and forgets replicas whose heartbeat ran out). */
  heartbeat(holder: string, ttlMs: number, now = Date.now()): void {
    this.sql.get(`DELETE FROM replicas WHERE expires_at <= ?`).run(now);
    this.sql
      .get(
        `INSERT INTO replicas (holder, pid, host, started_at, expires_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (holder) DO UPDATE SET expires_at = excluded.expires_at`,
      )
      .run(holder, process.pid, hostname(), nowIso(), now + ttlMs);
  }

  /** Replicas whose heartbeat has not run out, and that are not a process of this host that died, oldest first. */
  liveReplicas(now = Date.now()): LeaseHolder[] {
    const rows = this.sql
      .get(`SELECT holder, pid, host, started_at, expires_at FROM replicas WHERE expires_at > ? ORDER BY started_at, holder`)
      .all(now) as Array<{ holder: string; pid: number; host: string; started_at: string; expires_at: number }>;
    return rows
      .filter((row) => !diedOnThisHost(row))
      .map((row) => ({ holder: row.holder, pid: row.pid, host: row.host, acquiredAt: row.started_at, expiresAt: row.expires_at }));
  }

  /** How many shards each live replica should hold: ceil(shards / live replicas). */
  fairShare(now = Date.now()): number {
    return Math.ceil(this.shards / Math.max(1, this.liveReplicas(now).length));
  }

  /** Extends the leases still ours under their tokens; the rest are lost. */
  renew(holder: string, held: readonly HeldShard[], ttlMs: number, now = Date.now()): { renewed: HeldShard[]; lost: number[] } {
    this.changes += 1;
    const renewed: HeldShard[] = [];
    const lost: number[] = [];
    const update = this.sql.get(`UPDATE shard_leases SET expires_at = ? WHERE shard = ? AND holder = ? AND token = ?`);
    for (const lease of held) {
      if (update.run(now + ttlMs, lease.shard, holder, lease.token).changes === 1) renewed.push(lease);
      else lost.push(lease.shard);
    }
    return { renewed, lost };
  }

  /**
   * Takes up to `count` shards that no one holds, whose lease has expired, or whose holder was a
   * process of this host that has died (killed with SIGKILL, say: it can write nothing more, so
   * its shards need not wait for the expiry); each gets a new token.
   */
  acquire(holder: string, count: number, ttlMs: number, now = Date.now()): HeldShard[] {
    this.changes += 1;
    if (count <= 0) return [];
    const rows = this.sql.get(`SELECT shard, holder, pid, host, token, expires_at FROM shard_leases`).all() as Array<{ shard: number; holder: string; pid: number; host: string; token: number; expires_at: number }>;
    const taken = new Map(rows.map((row) => [row.shard, row]));
    // Taken over only as it was judged: expired, or still the dead holder's holding.
    const take = this.sql.get(
      `INSERT INTO shard_leases (shard, holder, pid, host, token, acquired_at, expires_at) VALUES (?, ?, ?, ?, 1, ?, ?)
       ON CONFLICT (shard) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, host = excluded.host,
         token = shard_leases.token + 1, acquired_at = excluded.acquired_at, expires_at = excluded.expires_at
       WHERE shard_leases.expires_at <= ? OR (shard_leases.holder = ? AND shard_leases.token = ?)`,
    );
    const gained: HeldShard[] = [];
    for (let shard = 0; shard < this.shards && gained.length < count; shard++) {
      const before = taken.get(shard);
      const dead = before !== undefined && before.expires_at > now && diedOnThisHost(before);
      if (before !== undefined && before.expires_at > now && !dead) continue;
      if (take.run(shard, holder, process.pid, hostname(), nowIso(), now + ttlMs, now, dead ? before.holder : null, dead ? before.token : null).changes !== 1) continue;
      const lease = this.current(shard);
      if (lease) gained.push({ shard, token: lease.token });
    }
    return gained;
  }

  /** Gives leases back at once (their tokens stay, so a late write under them is still refused). */
  handBack(holder: string, leases: readonly HeldShard[]): void {
    this.changes += 1;
    const release = this.sql.get(`UPDATE shard_leases SET expires_at = 0 WHERE shard = ? AND holder = ? AND token = ?`);
    for (const lease of leases) release.run(lease.shard, holder, lease.token);
  }

  /**
   * One pass of a replica's lease loop, in one write transaction: heartbeat, renew what it
   * holds, then give back what is over its fair share or take free shards up to it.
   */
  pass(holder: string, held: readonly HeldShard[], ttlMs: number, at?: number): LeasePass {
    return this.db
      .transaction((): LeasePass => {
        // The time is read once the write lock is held: a pass that waited for it (another
        // replica's long write) must not date its leases from before the wait.
        const now = at ?? Date.now();
        this.heartbeat(holder, ttlMs, now);
        const { renewed, lost } = this.renew(holder, held, ttlMs, now);
        const share = this.fairShare(now);
        if (renewed.length > share) {
          const over = [...renewed].sort((a, b) => a.shard - b.shard).slice(share);
          this.handBack(holder, over);
          const given = new Set(over.map((lease) => lease.shard));
          return { held: renewed.filter((lease) => !given.has(lease.shard)), gained: [], lost, handedBack: [...given], at: now };
        }
        const gained = this.acquire(holder, share - renewed.length, ttlMs, now);
        return { held: [...renewed, ...gained], gained, lost, handedBack: [], at: now };
      })
      .immediate();
  }

  /** The shards `holder` holds unexpired at `now`, with their tokens. */
  held(holder: string, now = Date.now()): HeldShard[] {
    return this.sql
      .get(`SELECT shard, token FROM shard_leases WHERE holder = ? AND expires_at > ? ORDER BY shard`)
      .all(holder, now) as HeldShard[];
  }

  current(shard: number): ShardLease | undefined {
    const row = this.sql
      .get(`SELECT shard, holder, pid, host, token, acquired_at, expires_at FROM shard_leases WHERE shard = ?`)
      .get(shard) as LeaseRow | undefined;
    return row && { shard: row.shard, holder: row.holder, pid: row.pid, host: row.host, token: row.token, acquiredAt: row.acquired_at, expiresAt: row.expires_at };
  }

  /**
   * Throws FencedWriteError unless `holder` holds `shard` under `token` and the lease has not
   * expired by `now`. Run it in the transaction of the write it guards.
   */
  checkFence(shard: number, holder: string, token: number, now = Date.now()): void {
    const lease = this.current(shard);
    if (lease?.holder === holder && lease.token === token && lease.expiresAt > now) return;
    throw new FencedWriteError(shard, holder, token, lease, now);
  }

  /**
   * Keeps `holder`'s heartbeat and its `held` leases (under their tokens, while unexpired) renewed
   * while the replica waits inside the database, where its own passes cannot run (see
   * SqlConnection.renewWhileBusy); `held` undefined stops that.
   */
  renewWhileBusy(holder: string, held: readonly HeldShard[] | undefined, ttlMs: number): void {
    this.db.renewWhileBusy?.(
      'shard leases',
      held && {
        ttlMs,
        statements: [
          { sql: `UPDATE replicas SET expires_at = @until WHERE holder = @holder AND expires_at > @now`, params: { holder } },
          ...held.map(({ shard, token }) => ({
            sql: `UPDATE shard_leases SET expires_at = @until WHERE shard = @shard AND holder = @holder AND token = @token AND expires_at > @now`,
            params: { shard, holder, token },
          })),
        ],
      },
    );
  }

  /** A replica stopping: gives back every lease it holds and ends its heartbeat. */
  leave(holder: string): void {
    this.changes += 1;
    this.renewWhileBusy(holder, undefined, 0);
    this.db
      .transaction(() => {
        this.sql.get(`UPDATE shard_leases SET expires_at = 0 WHERE holder = ?`).run(holder);
        this.sql.get(`DELETE FROM replicas WHERE holder = ?`).run(holder);
      })
      .immediate();
  }
}
