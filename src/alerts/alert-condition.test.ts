/** @module Tests of the alert condition's state machine: for_seconds before firing, one transition each way, hysteresis against flapping. */
import { describe, expect, it } from 'vitest';
import type { AlertCondition } from '../store/alerts.js';
import { evaluateCondition, RESOLVE_AFTER } from './alert-condition.js';

/** Runs the machine over values one second apart, returning the transitions and the final state. */
function run(values: number[], options: { threshold?: number; forSeconds?: number } = {}): { transitions: Array<string | null>; firing: boolean } {
  let remembered: AlertCondition = { aboveSince: null, belowCount: 0 };
  let firing = false;
  const transitions: Array<string | null> = [];
  values.forEach((value, i) => {
    const step = evaluateCondition({ remembered, firing, value, threshold: options.threshold ?? 90, forSeconds: options.forSeconds ?? 3, now: new Date(Date.UTC(2026, 0, 1, 0, 0, i)) });
    remembered = step.remember;
    if (step.transition === 'fire') firing = true;
    if (step.transition === 'resolve') firing = false;
    transitions.push(step.transition);
  });
  return { transitions, firing };
}

describe('evaluateCondition', () => {
  it('fires only once the value has stayed above the threshold for for_seconds, and only once', () => {
    expect(run([95, 95, 95]).transitions).toEqual([null, null, null]);
    expect(run([95, 95, 95, 95, 95, 95]).transitions).toEqual([null, null, null, 'fire', null, null]);
  });

  it('fires at the first evaluation above with for_seconds 0, and never at the threshold itself (strictly above)', () => {
    expect(run([95], { forSeconds: 0 }).transitions).toEqual(['fire']);
    expect(run([90, 90, 90, 90, 90], { forSeconds: 0 }).transitions).toEqual([null, null, null, null, null]);
  });

  it('starts for_seconds again after a dip below before firing', () => {
    expect(run([95, 95, 95, 10, 95, 95, 95]).transitions).toEqual([null, null, null, null, null, null, null]);
  });

  it(`resolves once, after ${RESOLVE_AFTER} evaluations in a row at or below the threshold`, () => {
    const { transitions, firing } = run([95, 95, 95, 95, 10, 10, 10, 10]);
    expect(transitions).toEqual([null, null, null, 'fire', null, 'resolve', null, null]);
    expect(firing).toBe(false);
  });

  it('does not flap: a value jumping across the threshold every evaluation fires once and never resolves', () => {
    const values = [95, 95, 95, 95, ...Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 10 : 95))];
    const { transitions } = run(values);
    expect(transitions.filter((t) => t !== null)).toEqual(['fire']);
  });

  it('after resolving, needs for_seconds above again to fire again', () => {
    const { transitions } = run([95, 95, 95, 95, 10, 10, 95, 95, 95, 95], { forSeconds: 3 });
    expect(transitions.filter((t) => t !== null)).toEqual(['fire', 'resolve', 'fire']);
    expect(transitions.indexOf('fire', 4)).toBe(9);
  });
});
