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

/**
 * The newest slot at or before `now`, if it is not before `since` (when the schedule took
 * effect): the scheduled backup that is due, or undefined when none is.
 */
export function dueSlot(schedule: string, since: Date, now: Date): Date | undefined {
  const slot = parse(schedule, new Date(now.getTime() + 1)).prev().toDate();
  return slot.getTime() >= since.getTime() ? slot : undefined;
}

/** The first slot after `now`. */
export function nextSlot(schedule: string, now: Date): Date {
  return parse(schedule, now).next().toDate();
}
