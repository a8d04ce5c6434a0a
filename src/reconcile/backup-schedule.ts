/**
 * @module Backup schedules: a database's `spec.backup.schedule` is a five-field cron expression
 * in UTC. Each scheduled backup is for one slot (a time the schedule names); only the newest slot
 * that has come is taken, never a backlog, and never one from before the schedule was set.
 */
import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { StallError } from './errors.js';

export const REASON_INVALID_SCHEDULE = 'InvalidBackupSchedule';

function parse(schedule: string, at: Date): CronExpression {
  const fields = schedule.trim().split(/\s+/);
  if (fields.length !== 5) {
    throw new StallError(REASON_INVALID_SCHEDULE, `spec.backup.schedule "${schedule}" must be a cron expression of five fields (minute hour day month weekday, UTC), e.g. "0 3 * * *"`);
  }
  try {
    return CronExpressionParser.parse(schedule, { currentDate: at, tz: 'UTC' });
  } catch (error) {
    throw new StallError(REASON_INVALID_SCHEDULE, `spec.backup.schedule "${schedule}" is not a valid cron expression: ${(error as Error).message}`);
  }
}

/** The slot at or before a moment and the first slot after it. */
interface SlotWindow {
  slot: number;
  next: number;
}

/**
 * Per schedule, the window around the last moment asked about: every moment in [slot, next) has
 * the same due slot and next slot, so cron-parser (luxon underneath, ~0.7 ms a pair) runs once
 * per slot of a schedule instead of on every reconcile pass of every database.
 */
const windows = new Map<string, SlotWindow>();
const MAX_WINDOWS = 1024;

function windowAround(schedule: string, now: Date): SlotWindow {
  const at = now.getTime();
  const known = windows.get(schedule);
  if (known !== undefined && known.slot <= at && at < known.next) return known;
  const found = { slot: parse(schedule, new Date(at + 1)).prev().toDate().getTime(), next: parse(schedule, now).next().toDate().getTime() };
  if (windows.size >= MAX_WINDOWS) windows.clear();
  windows.set(schedule, found);
  return found;
}

/**
 * The newest slot at or before `now`, if it is not before `since` (when the schedule took
 * effect): the scheduled backup that is due, or undefined when none is.
 */
export function dueSlot(schedule: string, since: Date, now: Date): Date | undefined {
  const { slot } = windowAround(schedule, now);
  return slot >= since.getTime() ? new Date(slot) : undefined;
}

/** The first slot after `now`. */
export function nextSlot(schedule: string, now: Date): Date {
  return new Date(windowAround(schedule, now).next);
}
