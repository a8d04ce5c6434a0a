/** @module Tests of the work queue's de-duplication, in-flight exclusivity, delays and backoff. */
import { describe, expect, it } from 'vitest';
import { ItemExponentialBackoff, MaxOfRateLimiter, TokenBucket } from './rate-limiter.js';
import { WorkQueue } from './work-queue.js';

const queue = (): WorkQueue<string> => new WorkQueue<string>(new ItemExponentialBackoff<string>(5, 1000, 0));

describe('WorkQueue', () => {
  it('queues an item once however often it is added', async () => {
    const q = queue();
    q.add('a');
    q.add('a');
    q.add('b');
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
  });

  it('never hands an item being processed to a second worker, and re-queues it after', async () => {
    const q = queue();
    q.add('a');
    const first = await q.get();
    q.add('a');
    expect(q.length).toBe(0);
    q.done(first ?? '');
    expect(q.length).toBe(1);
    expect(await q.get()).toBe('a');
  });

  it('shows the items waiting for a worker, not those being processed', async () => {
    const q = queue();
    q.add('a');
    q.add('b');
    q.add('c');
    await q.get();
    expect(q.snapshot()).toEqual(['b', 'c']);
  });

  it('drops the matching items whether queued, delayed or re-added while processed, and their failures', async () => {
    const q = queue();
    q.add('a1');
    q.add('b1');
    q.addAfter('a2', 20);
    q.addRateLimited('a3');
    const processing = await q.get();
    q.add('a1');
    q.dropWhere((item) => item.startsWith('a'));
    expect(q.snapshot()).toEqual(['b1']);
    expect(q.delayedCount).toBe(0);
    expect(q.failures('a3')).toBe(0);
    q.done(processing ?? '');
    expect(q.snapshot()).toEqual(['b1']);
  });

  it('delays adds, keeping the earliest due time', async () => {
    const q = queue();
    q.addAfter('a', 1000);
    q.addAfter('a', 10);
    const started = Date.now();
    expect(await q.get()).toBe('a');
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('backs off exponentially per item and forgets on success', () => {
    const q = queue();
    const delays = [1, 2, 3, 4].map(() => q.addRateLimited('a'));
    expect(delays).toEqual([5, 10, 20, 40]);
    q.forget('a');
    expect(q.addRateLimited('a')).toBe(5);
    expect(q.addRateLimited('b', 2000)).toBe(2000);
    q.shutdown();
  });

  it('wakes waiting workers with undefined on shutdown', async () => {
    const q = queue();
    const waiting = q.get();
    q.shutdown();
    expect(await waiting).toBeUndefined();
  });
});

describe('rate limiters', () => {
  it('caps backoff at the maximum', () => {
    const limiter = new ItemExponentialBackoff<string>(5, 100, 0);
    for (let i = 0; i < 10; i++) limiter.when('x');
    expect(limiter.when('x')).toBe(100);
  });

  it('the overall bucket delays once the burst is spent, and the larger delay wins', () => {
    let now = 0;
    const bucket = new TokenBucket<string>(10, 2, () => now);
    expect(bucket.when('a')).toBe(0);
    expect(bucket.when('b')).toBe(0);
    expect(bucket.when('c')).toBeCloseTo(100);
    now = 1000;
    const combined = new MaxOfRateLimiter<string>(new ItemExponentialBackoff<string>(5, 1000, 0), new TokenBucket<string>(10, 100, () => now));
    expect(combined.when('z')).toBe(5);
  });
});
