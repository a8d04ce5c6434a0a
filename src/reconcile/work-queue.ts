/**
 * @module A work queue with client-go's semantics: an item is queued at most once (adding it
 * again while queued is a no-op); an item being processed is never handed to a second worker,
 * and if it is added meanwhile it is queued again when the first worker is done. Delayed adds
 * (`addAfter`) and rate-limited adds (`addRateLimited`) keep the earliest due time.
 */
import type { RateLimiter } from './rate-limiter.js';

export class WorkQueue<K> {
  private readonly queue: K[] = [];
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly waiting = new Map<K, { due: number; timer: NodeJS.Timeout }>();
  private readonly getters: Array<(item: K | undefined) => void> = [];
  private shuttingDown = false;

  constructor(private readonly limiter: RateLimiter<K>) {}

  add(item: K): void {
    if (this.shuttingDown || this.dirty.has(item)) return;
    this.cancelWaiting(item);
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.push(item);
  }

  /** Adds after `delayMs`; an earlier pending delayed add of the same item wins. */
  addAfter(item: K, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) return this.add(item);
    const due = Date.now() + delayMs;
    const existing = this.waiting.get(item);
    if (existing && existing.due <= due) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.waiting.delete(item);
      this.add(item);
    }, delayMs);
    timer.unref();
    this.waiting.set(item, { due, timer });
  }

  /** Re-adds after the rate limiter's delay for this item (one more failure). */
  addRateLimited(item: K, atLeastMs = 0): number {
    const delay = Math.max(this.limiter.when(item), atLeastMs);
    this.addAfter(item, delay);
    return delay;
  }

  /** Re-adds after the rate limiter's delay for this item (one more failure), at least `floorMs`, never later than `capMs`. */
  addBackoffCapped(item: K, floorMs: number, capMs: number): number {
    const delay = Math.min(Math.max(this.limiter.when(item), floorMs), capMs);
    this.addAfter(item, delay);
    return delay;
  }

  /** Forgets the item's failures (call on success). */
  forget(item: K): void {
    this.limiter.forget(item);
  }

  failures(item: K): number {
    return this.limiter.failures(item);
  }

  /** The next item, or undefined once shut down. */
  get(): Promise<K | undefined> {
    const item = this.queue.shift();
    if (item !== undefined) return Promise.resolve(this.take(item));
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Marks an item processed; if it was added meanwhile it is queued again. */
  done(item: K): void {
    this.processing.delete(item);
    if (this.dirty.has(item)) this.push(item);
  }

  /** Items queued now (not counting delayed ones or those being processed). */
  get length(): number {
    return this.queue.length;
  }

  /** The items queued now, in order (a copy; for metrics such as the queue depth per kind). */
  snapshot(): K[] {
    return [...this.queue];
  }

  get delayedCount(): number {
    return this.waiting.size;
  }

  get processingCount(): number {
    return this.processing.size;
  }

  /**
   * Takes every item matching `drop` out of the queue, its delayed adds and its pending re-adds,
   * and forgets its failures (a shard another replica took). An item being processed finishes.
   */
  dropWhere(drop: (item: K) => boolean): void {
    const kept = this.queue.filter((item) => !drop(item));
    this.queue.splice(0, this.queue.length, ...kept);
    for (const item of [...this.dirty, ...this.waiting.keys()]) {
      if (!drop(item)) continue;
      this.dirty.delete(item);
      this.cancelWaiting(item);
      this.limiter.forget(item);
    }
  }

  shutdown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
    for (const getter of this.getters.splice(0)) getter(undefined);
  }

  private push(item: K): void {
    const getter = this.getters.shift();
    if (getter) getter(this.take(item));
    else this.queue.push(item);
  }

  private take(item: K): K {
    this.dirty.delete(item);
    this.processing.add(item);
    return item;
  }

  private cancelWaiting(item: K): void {
    const existing = this.waiting.get(item);
    if (existing) {
      clearTimeout(existing.timer);
      this.waiting.delete(item);
    }
  }
}
