/**
 * @module The loop that keeps git sources synced: every source is synced at start, again each
 * interval, and at once when a sync is asked for (a webhook, POST /sync, `cairn sources sync`:
 * they bump the source's sync-request counter, which the loop reads every `scanMs`). A source
 * syncs one at a time; a request during a sync runs another right after. Suspended sources are
 * left alone.
 */
import type { Store } from '../store/store.js';
import type { SyncReport } from './source-sync.js';

/** What syncs one source (SourceSyncer). */
export interface SourceSync {
  sync(sourceId: string): Promise<SyncReport>;
  /** The source was deleted: drop what was kept for it (its repository cache). */
  forget?(sourceId: string): Promise<void>;
}

export interface SyncLoopOptions {
  /** How often the sources table is read for new sources, settings and requests. */
  scanMs?: number;
  /** Told about each finished sync (serve prints them). */
  onReport?: (report: SyncReport) => void;
  /** Told about a sync that failed unexpectedly; the loop goes on. */
  onError?: (sourceId: string, error: unknown) => void;
}

export class SourceSyncLoop {
  private timer: NodeJS.Timeout | undefined;
  private readonly running = new Map<string, Promise<void>>();
  private readonly seenRequests = new Map<string, number>();
  private readonly again = new Set<string>();
  private stopped = true;

  constructor(private readonly store: Store, private readonly syncer: SourceSync, private readonly options: SyncLoopOptions = {}) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.scanOrReport();
    this.timer = setInterval(() => this.scanOrReport(), this.options.scanMs ?? 250);
    this.timer.unref();
  }

  /** Scans now, if the loop runs here (a sync was just asked for); what goes wrong is told about, not thrown. */
  scanNow(): void {
    this.scanOrReport();
  }

  /** A scan on the timer: a store that refuses it (a lease lost, the database away) is told about, and the next scan tries again. */
  private scanOrReport(): void {
    try {
      this.scan();
    } catch (error) {
      this.options.onError?.('(every source)', error);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await Promise.all([...this.running.values()]);
  }

  /** Asks for a sync of one source now (in this process: no wait for the next scan). */
  trigger(id: string): void {
    this.store.sources.requestSync(id);
    this.scan();
  }

  /** Starts the syncs that are due. */
  scan(): void {
    if (this.stopped) return;
    const now = Date.now();
    const sources = this.store.sources.all();
    const present = new Set(sources.map((s) => s.id));
    for (const id of this.seenRequests.keys()) {
      if (present.has(id) || this.running.has(id)) continue;
      this.seenRequests.delete(id);
      void this.syncer.forget?.(id).catch((error: unknown) => this.options.onError?.(id, error));
    }
    for (const source of sources) {
      // First seen (at start, or just added): synced once unless suspended, whatever its last attempt.
      const seen = this.seenRequests.get(source.id);
      const requested = seen !== undefined && seen !== source.syncRequests;
      const lastAttempt = source.lastAttemptAt === null || seen === undefined ? Number.NEGATIVE_INFINITY : Date.parse(source.lastAttemptAt);
      if (!requested && now - lastAttempt < source.intervalSeconds * 1000) continue;
      if (this.running.has(source.id)) {
        if (requested) {
          // Requests that arrive during a sync are answered by one more sync right after it.
          this.seenRequests.set(source.id, source.syncRequests);
          this.again.add(source.id);
        }
        continue;
      }
      this.seenRequests.set(source.id, source.syncRequests);
      if (source.suspended && !requested) continue;
      this.run(source.id);
    }
  }

  private run(id: string): void {
    const done = this.syncer
      .sync(id)
      .then((report) => this.options.onReport?.(report))
      .catch((error: unknown) => this.options.onError?.(id, error))
      .finally(() => {
        this.running.delete(id);
        if (this.again.delete(id) && !this.stopped) this.run(id);
      });
    this.running.set(id, done);
  }
}
