import { describe, expect, it } from 'vitest';
import { heldBudgets, MAX_BUDGETS, platformBudget } from './platform-budgets.js';

const OPTIONS = { perHour: 3600, burst: 10 };

describe('platformBudget', () => {
  it('gives the same budget to every call with the same key', () => {
    expect(platformBudget('Heroku a k1', OPTIONS)).toBe(platformBudget('Heroku a k1', OPTIONS));
    expect(platformBudget('Heroku a k1', OPTIONS)).not.toBe(platformBudget('Heroku a k2', OPTIONS));
  });

  it('holds at most MAX_BUDGETS, dropping the least recently used', () => {
    const kept = platformBudget('Heroku a kept', OPTIONS);
    for (let i = 0; i < MAX_BUDGETS + 50; i++) {
      platformBudget(`Heroku a random-${i}`, OPTIONS);
      if (i % 100 === 0) platformBudget('Heroku a kept', OPTIONS);
    }
    expect(heldBudgets()).toBe(MAX_BUDGETS);
    expect(platformBudget('Heroku a kept', OPTIONS)).toBe(kept);
    expect(platformBudget('Heroku a random-0', OPTIONS)).not.toBe(undefined);
  });
});
