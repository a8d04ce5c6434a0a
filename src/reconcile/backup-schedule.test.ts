/** @module Tests of backup schedules: which slot is due, never one from before the schedule, and bad expressions stall. */
import { describe, expect, it } from 'vitest';
import { dueSlot, nextSlot } from './backup-schedule.js';
import { StallError } from './errors.js';

const at = (iso: string): Date => new Date(iso);

describe('backup schedules', () => {
  it('is due for the newest slot that has come, including one that comes exactly now', () => {
    expect(dueSlot('0 3 * * *', at('2030-01-01T00:00:00Z'), at('2030-01-03T05:00:00Z'))?.toISOString()).toBe('2030-01-03T03:00:00.000Z');
    expect(dueSlot('0 3 * * *', at('2030-01-01T00:00:00Z'), at('2030-01-03T03:00:00Z'))?.toISOString()).toBe('2030-01-03T03:00:00.000Z');
  });

  it('is not due for a slot before the schedule took effect', () => {
    expect(dueSlot('0 3 * * *', at('2030-01-03T04:00:00Z'), at('2030-01-03T05:00:00Z'))).toBeUndefined();
  });

  it('names the next slot to look again at', () => {
    expect(nextSlot('30 */6 * * *', at('2030-01-03T05:00:00Z')).toISOString()).toBe('2030-01-03T06:30:00.000Z');
  });

  it('stalls on an expression that is not five cron fields, saying what is wanted', () => {
    expect(() => dueSlot('every day', at('2030-01-01T00:00:00Z'), at('2030-01-02T00:00:00Z'))).toThrow(StallError);
    expect(() => nextSlot('0 0 3 * * *', at('2030-01-01T00:00:00Z'))).toThrow(/five fields/);
    expect(() => nextSlot('61 3 * * *', at('2030-01-01T00:00:00Z'))).toThrow(/not a valid cron expression/);
  });
});

describe('slot windows', () => {
  it('answers the same as a fresh reading, in any order of moments, back and forth across slots', () => {
    const base = Date.parse('2026-11-27T02:50:00.000Z');
    const moments = [0, 10 * 60_000, 1, 5 * 60_000 - 1, 5 * 60_000, 24 * 3_600_000, 59_999, 10 * 60_000 + 1, 3, 26 * 3_600_000].map((d) => new Date(base + d));
    const expected: Record<string, string[]> = {
      '*/5 * * * *': ['02:50 02:55', '03:00 03:05', '02:50 02:55', '02:50 02:55', '02:55 03:00', '02:50 02:55', '02:50 02:55', '03:00 03:05', '02:50 02:55', '04:50 04:55'],
      '0 3 * * *': ['03:00@26 03:00@27', '03:00@27 03:00@28', '03:00@26 03:00@27', '03:00@26 03:00@27', '03:00@26 03:00@27', '03:00@27 03:00@28', '03:00@26 03:00@27', '03:00@27 03:00@28', '03:00@26 03:00@27', '03:00@28 03:00@29'],
    };
    const since = new Date(0);
    const short = (d: Date | undefined, daily: boolean): string => (d === undefined ? '-' : daily ? `${d.toISOString().slice(11, 16)}@${d.toISOString().slice(8, 10)}` : d.toISOString().slice(11, 16));
    for (const [schedule, answers] of Object.entries(expected)) {
      const daily = schedule === '0 3 * * *';
      expect(moments.map((now) => `${short(dueSlot(schedule, since, now), daily)} ${short(nextSlot(schedule, now), daily)}`)).toEqual(answers);
    }
  });

  it('refuses an invalid schedule every time it is asked, caching nothing for it', () => {
    for (let i = 0; i < 2; i++) expect(() => nextSlot('61 * * * *', new Date())).toThrow(/not a valid cron expression/);
  });
});
