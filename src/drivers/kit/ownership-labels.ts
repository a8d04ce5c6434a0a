/**
 * @module Idempotency without a client token: most vendors have none, so everything cairn
 * creates carries its idempotency key as a label (or tag), and `observe` finds it by that label
 * after a crash, so a create killed mid-flight never leaves a duplicate. The key is derived from
 * the resource's uid and incarnation (see reconcile/idempotency.ts), so the label also tells a
 * person looking at the vendor's console which cairn resource made the thing.
 */

/** The label (tag key) that holds the idempotency key. */
export const KEY_LABEL = 'cairn-key';

/** The labels every created thing carries. */
export function ownershipLabels(key: string): Record<string, string> {
  return { [KEY_LABEL]: key, 'managed-by': 'cairn' };
}

/** The key a thing was created under, from its labels; undefined for things cairn did not make. */
export function keyFromLabels(labels: Readonly<Record<string, string>> | undefined): string | undefined {
  return labels?.[KEY_LABEL];
}
