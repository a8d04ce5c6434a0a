/**
 * @module The rate budget on a fake clock: a burst goes at once, then one request per refill
 * interval; the vendor's own count and a 429's pause hold everyone back; an abort ends a wait.
 */
import { describe, expect, it, vi } from 'vitest';
import { budgetRateScale, RateBudget, scaledBudget, sharedBudget } from './rate-budget.js';

describe('RateBudget', () => {
  it('lets a burst through at once, then refills at the published rate', async () => {
    let now = 0;
    const budget = new RateBudget({ perHour: 3600, burst: 3 }, () => now);
    for (let i = 0; i < 3; i++) await budget.take();
    let fourth = false;
    const waiting = budget.take().then(() => (fourth = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fourth).toBe(false);
    now += 1000; // one request a second at 3,600 an hour
    await waiting;
    expect(fourth).toBe(true);
    expect(budget.stats.taken).toBe(4);
  });

  it('follows the vendor: none left until the reset, and a 429 pause holds every caller', async () => {
    let now = 10_000;
    const budget = new RateBudget({ perHour: 360_000, burst: 100 }, () => now);
    budget.observe(0, now + 5_000);
    const controller = new AbortController();
    const waiting = budget.take(controller.signal);
    controller.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
    now += 5_000;
    await budget.take();
    budget.pause(2_000);
    const held = budget.take(AbortSignal.timeout(50));
    await expect(held).rejects.toThrow();
  });

  it('counts requests sent since the vendor’s newest answer, and after its window frees lets one go at a time until an answer says more', async () => {
    let now = 0;
    const budget = new RateBudget({ perHour: 108_000, burst: 30 }, () => now);
    const first = await budget.take();
    budget.observe(2, 1_000, first); // after the first request, two are left until t=1000
    await budget.take();
    await budget.take();
    const later: number[] = [];
    const waiting = [budget.take().then((t) => later.push(t)), budget.take().then((t) => later.push(t))];
    now = 500; // fifteen requests' worth of cairn's own refill, but the vendor's window holds none
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(later).toEqual([]);
    budget.observe(5, 900, first); // an answer older than the newest: changes nothing
    now = 1_000;
    await vi.waitFor(() => expect(later, 'one goes when the window frees').toHaveLength(1), { timeout: 3_000 });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(later, 'the other waits for its answer').toHaveLength(1);
    budget.observe(3, 2_000, later[0]); // its answer: three more may go
    await Promise.all(waiting);
    expect(later).toHaveLength(2);
  });

  it('keeps to both of a vendor’s limits: a minute’s worth at once, then the minute rate until the hour’s is spent', async () => {
    let now = 0;
    // DigitalOcean's shape, scaled down: 10 an hour in all, at most 3 a minute.
    const budget = new RateBudget({ perHour: 10, burst: 10, perMinute: 3 }, () => now);
    for (let i = 0; i < 3; i++) await budget.take();
    const held = budget.take(AbortSignal.timeout(50));
    await expect(held, 'the minute’s three are spent').rejects.toThrow();
    now = 20_000; // a third of a minute: one more
    await budget.take();
    now = 240_000; // four minutes on: the minute bucket is full again, but the hour's 10 have only 6 left
    for (let i = 0; i < 3; i++) await budget.take();
    expect(budget.stats.taken).toBe(7);
  });
});

describe('the rate scale (CAIRN_VENDOR_RATE_SCALE)', () => {
  it('is 1 unless set, and refuses anything but a positive number, naming the variable', () => {
    expect(budgetRateScale({})).toBe(1);
    expect(budgetRateScale({ CAIRN_VENDOR_RATE_SCALE: '' })).toBe(1);
    expect(budgetRateScale({ CAIRN_VENDOR_RATE_SCALE: '20' })).toBe(20);
    for (const bad of ['0', '-2', 'fast', 'Infinity']) {
      expect(() => budgetRateScale({ CAIRN_VENDOR_RATE_SCALE: bad })).toThrow(`CAIRN_VENDOR_RATE_SCALE must be a positive number (how many times each vendor's published request rate cairn may use), got "${bad}"`);
    }
  });

  it('multiplies the rates, never the burst: a tenth of the wait at ten times the rate', async () => {
    expect(scaledBudget({ perHour: 5000, burst: 5000, perMinute: 250 }, 10)).toEqual({ perHour: 50_000, burst: 5000, perMinute: 2500 });
    expect(scaledBudget({ perHour: 3600, burst: 3 }, 1)).toEqual({ perHour: 3600, burst: 3 });
    let now = 0;
    const budget = new RateBudget(scaledBudget({ perHour: 3600, burst: 2 }, 10), () => now);
    await budget.take();
    await budget.take();
    const held = budget.take(AbortSignal.timeout(50));
    await expect(held, 'the burst is still two').rejects.toThrow();
    now = 100; // one request a second at 3,600 an hour; ten a second at ten times that
    await budget.take();
    expect(budget.stats.taken).toBe(3);
  });

  it('is what a provider’s shared budget is made with', async () => {
    vi.stubEnv('CAIRN_VENDOR_RATE_SCALE', '10');
    try {
      const budget = sharedBudget(`rate-scale-test ${Math.random()}`, { perHour: 3600, burst: 1 });
      await budget.take();
      await budget.take();
      expect(budget.stats.waitedMs, 'the second request waited for a tenth of a second’s refill, not a second’s').toBeGreaterThan(0);
      // Unscaled, the wait would be a whole second; the margin leaves room for a loaded machine's timers.
      expect(budget.stats.waitedMs).toBeLessThan(600);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
