/**
 * @module The evaluation of one (AlertRule, Server) pair, pure: given what was remembered, the
 * metric's value now and whether an alert is firing, what to remember next and whether the alert
 * fires or resolves. It fires once the value has stayed strictly above the threshold for
 * `forSeconds` (from the first evaluation that saw it above); it resolves only after
 * RESOLVE_AFTER evaluations in a row at or below the threshold (hysteresis: one dip does not end
 * an alert, and one spike after it does not start a new one), so a value hovering at the
 * threshold notifies at most once per for_seconds-long excursion rather than every evaluation.
 */
import type { AlertCondition } from '../store/alerts.js';

/** Evaluations in a row at or below the threshold that resolve a firing alert. */
export const RESOLVE_AFTER = 2;

export interface ConditionInput {
  remembered: AlertCondition;
  firing: boolean;
  value: number;
  threshold: number;
  forSeconds: number;
  now: Date;
}

export interface ConditionStep {
  remember: AlertCondition;
  transition: 'fire' | 'resolve' | null;
}

export function evaluateCondition({ remembered, firing, value, threshold, forSeconds, now }: ConditionInput): ConditionStep {
  const above = value > threshold;
  if (!firing) {
    if (!above) return { remember: { aboveSince: null, belowCount: 0 }, transition: null };
    const aboveSince = remembered.aboveSince ?? now.toISOString();
    const heldMs = now.getTime() - Date.parse(aboveSince);
    if (heldMs >= forSeconds * 1000) return { remember: { aboveSince: null, belowCount: 0 }, transition: 'fire' };
    return { remember: { aboveSince, belowCount: 0 }, transition: null };
  }
  if (above) return { remember: { aboveSince: null, belowCount: 0 }, transition: null };
  const belowCount = remembered.belowCount + 1;
  if (belowCount >= RESOLVE_AFTER) return { remember: { aboveSince: null, belowCount: 0 }, transition: 'resolve' };
  return { remember: { aboveSince: null, belowCount }, transition: null };
}
