/**
 * @module The commit group: many small writes, one fsync. With `synchronous = FULL` every commit
 * costs an fsync (milliseconds, and better-sqlite3 blocks the event loop meanwhile), so the
 * reconcile loop does not commit each status write, event and pending-operation record on its
 * own: it opens the group, and every write on the connection until the group commits lands in
 * one transaction (a write that throws rolls back only itself: better-sqlite3 runs a
 * transaction inside an open one as a savepoint).
 *
 * The group commits `maxDelayMs` after it opened, or as soon as the current round of I/O
 * callbacks has run when something waits for it (`committed()`), or at once on `commitNow()`.
 * Crash safety rests on who waits: what must survive a power loss before cairn acts on it — a
 * vendor call after its pending-create record, an API answer to a write, the end of an apply —
 * waits for the commit (`committed()` or `commitNow()`) first. Everything else a crash loses
 * from an open group is status the reconciler derives again from the vendor. Other processes
 * see the group's writes when it commits (WAL readers never see uncommitted frames); their own
 * writes wait for it through the busy timeout, at most `maxDelayMs` plus one commit. A commit
 * that fails on its timer (disk full, an I/O error) rolls the group back and is thrown there,
 * ending the process: cairn does not carry on from state it could not record.
 */
import type { SqlConnection } from './connection.js';

/** How long a group stays open at most before it commits. */
export const DEFAULT_MAX_DELAY_MS = 5;

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class CommitGroup {
  private isOpen = false;
  private deadline: NodeJS.Timeout | undefined;
  private soon: NodeJS.Immediate | undefined;
  private waiters: Waiter[] = [];
  /** Groups committed so far, for tests and benchmarks. */
  private commitCount = 0;

  constructor(private readonly db: SqlConnection, private readonly maxDelayMs = DEFAULT_MAX_DELAY_MS) {}

  /** True while writes on the connection join an uncommitted group. */
  get open(): boolean {
    return this.isOpen;
  }

  /** How many groups have been committed. */
  get commits(): number {
    return this.commitCount;
  }

  /**
   * Opens a group if none is open (and no other transaction is running on the connection):
   * writes from now until it commits land in its transaction.
   */
  begin(): void {
    if (this.isOpen || !this.db.open || this.db.inTransaction) return;
    this.db.exec('BEGIN IMMEDIATE');
    this.isOpen = true;
    this.deadline = setTimeout(() => this.commitNow(), this.maxDelayMs);
  }

  /** Resolves once everything written so far is durable: at once when no group is open. */
  committed(): Promise<void> {
    if (!this.isOpen) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    // Let the other callbacks of this round write into the group too, then commit them together.
    this.soon ??= setImmediate(() => this.commitNow());
    return done;
  }

  /** Commits the open group now (one fsync). Throws, after rolling the group back, if the commit fails. */
  commitNow(): void {
    if (!this.isOpen) return;
    clearTimeout(this.deadline);
    if (this.soon !== undefined) clearImmediate(this.soon);
    this.deadline = undefined;
    this.soon = undefined;
    this.isOpen = false;
    const waiters = this.waiters;
    this.waiters = [];
    try {
      this.db.exec('COMMIT');
      this.commitCount += 1;
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      for (const waiter of waiters) waiter.reject(error);
      throw error;
    }
    for (const waiter of waiters) waiter.resolve();
  }
}
