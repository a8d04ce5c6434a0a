/** @module Tests of usage: warnings at 80% and 100%, past due refusing all, the calendar month without a subscription, billing off unlimited. */
import { describe, expect, it } from 'vitest';
import { usageOf } from './usage.js';

const limits = { servers: 10, databases: 5, apps: 2 };

describe('usageOf', () => {
  it('warns at 80% and at 100% of a limit, not below', () => {
    const usage = usageOf({ plan: 'pro', limits, used: { servers: 7, databases: 4, apps: 2 }, period: { start: 'a', end: 'b' } });
    expect(usage.resources).toEqual({ servers: { used: 7, limit: 10 }, databases: { used: 4, limit: 5 }, apps: { used: 2, limit: 2 } });
    expect(usage.warnings.map((w) => [w.resource, w.threshold])).toEqual([['databases', 80], ['apps', 100]]);
    expect(usage.warnings[1]?.message).toBe('2 of 2 apps the pro plan allows: new apps are refused until you upgrade or delete some');
    expect(usage).toMatchObject({ periodStart: 'a', periodEnd: 'b' });
  });

  it('says every create is refused when past due, and uses the calendar month without a subscription period', () => {
    const usage = usageOf({ plan: 'pro', limits, used: { servers: 0, databases: 0, apps: 0 }, createsRefused: 'past due', now: new Date('2026-02-14T10:00:00Z') });
    expect(usage.warnings).toEqual([{ resource: 'all', threshold: 100, message: 'past due' }]);
    expect(usage).toMatchObject({ periodStart: '2026-02-01T00:00:00.000Z', periodEnd: '2026-03-01T00:00:00.000Z' });
  });

  it('limits nothing and warns of nothing with billing off', () => {
    const usage = usageOf({ plan: 'self-hosted', limits: null, used: { servers: 500, databases: 0, apps: 0 } });
    expect(usage.resources.servers).toEqual({ used: 500, limit: null });
    expect(usage.warnings).toEqual([]);
  });
});
