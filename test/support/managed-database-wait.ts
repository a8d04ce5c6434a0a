/**
 * @module Waiting for a managed database at a vendor double to finish creating, by observing it
 * as the reconciler would: tests start the double with a long action time, so the create's answer
 * says `creating` even on a loaded machine, then wait here instead of sleeping a fixed time.
 */
import type { DatabaseRuntime, ExternalRef } from '../../src/drivers/contract.js';

/** Polls `observe` every 100 ms until none of `refs` is creating any more (at most 10 s). */
export async function untilCreated(databases: DatabaseRuntime, refs: readonly ExternalRef[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (const ref of refs) {
    while ((await databases.observe(ref))?.status === 'creating') {
      if (Date.now() > deadline) throw new Error(`database ${ref.externalId ?? ref.key} was still creating after 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** The action time (ms) of a double whose creates must still be `creating` when their answer arrives. */
export const SLOW_ENOUGH_ACTION_MS = 1_500;
