/** @module Tests of the delivery backoff: doubling from one second and given up after MAX_ATTEMPTS. */
import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, retryDelayMs } from './delivery-backoff.js';

describe('retryDelayMs', () => {
  it('waits twice as long after each failed attempt, from one second', () => {
    expect([1, 2, 3, 4, 5].map(retryDelayMs)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000]);
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts`, () => {
    expect(retryDelayMs(MAX_ATTEMPTS)).toBeNull();
    expect(retryDelayMs(MAX_ATTEMPTS + 3)).toBeNull();
  });
});
