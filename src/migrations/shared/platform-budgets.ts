/**
 * @module The request budgets of migration platform API keys: one RateBudget per key and API
 * (by a fingerprint of the key, never the key), at the platform's published rate times
 * CAIRN_VENDOR_RATE_SCALE, shared by every call with that key. Unlike a Provider's budget, the
 * keys come from users' requests, one per call, so the budgets are held in a bounded map: the
 * least recently used is dropped past `MAX_BUDGETS`, so random keys cannot grow cairn's memory.
 */
import { budgetRateScale, RateBudget, scaledBudget, type RateBudgetOptions } from '../../drivers/kit/rate-budget.js';

/** How many keys' budgets are held at once. */
export const MAX_BUDGETS = 1000;

const budgets = new Map<string, RateBudget>();

/** The budget of `key` (a rate-limit-memory key: platform, API, fingerprint), made on first use. */
export function platformBudget(key: string, options: RateBudgetOptions): RateBudget {
  let budget = budgets.get(key);
  if (budget) {
    budgets.delete(key);
  } else {
    budget = new RateBudget(scaledBudget(options, budgetRateScale()));
    while (budgets.size >= MAX_BUDGETS) budgets.delete(budgets.keys().next().value!);
  }
  budgets.set(key, budget);
  return budget;
}

/** How many budgets are held (for tests). */
export function heldBudgets(): number {
  return budgets.size;
}
