/**
 * @module The spent-key case of the vendors whose client token outlives what it made (EC2's and
 * Tencent's ClientToken, Google's requestId, OCI's opc-retry-token): a create under a key whose
 * instance was deleted is refused as IdempotencyKeySpentError after one more create call, makes
 * nothing, and a create under the next key makes one.
 */
import { expect } from 'vitest';
import type { CloudDriver, ServerDesired } from '../../src/drivers/contract.js';
import { IdempotencyKeySpentError } from '../../src/drivers/errors.js';

export interface SpentKeyDouble {
  /** What the vendor holds that is not deleted or being deleted. */
  live(): unknown[];
  /** How many create calls (RunInstances, insert, LaunchInstance) it has answered. */
  creates(): number;
}

export async function expectSpentKeyRefused(driver: CloudDriver, desired: ServerDesired, double: SpentKeyDouble): Promise<void> {
  const first = await driver.servers.create('cairn-spent-0', desired);
  await driver.servers.delete(first.id);
  // The key lookup finds nothing, so the create is sent under the same token, which the vendor answers with what it made.
  await expect(driver.servers.create('cairn-spent-0', desired)).rejects.toThrow(IdempotencyKeySpentError);
  expect(double.live()).toEqual([]);
  expect(double.creates()).toBe(2);
  await driver.servers.create('cairn-spent-1', desired);
  expect(double.live()).toHaveLength(1);
}
