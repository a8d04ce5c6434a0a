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
