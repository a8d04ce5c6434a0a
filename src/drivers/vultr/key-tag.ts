/**
 * @module Idempotency by tag at Vultr, which takes no client token: every instance cairn creates
 * carries the tag `cairn-key:<key>` (and `managed-by:cairn`), and an instance whose create answer
 * was lost is found by that tag (`list-instances?tag=`). Vultr's document puts no rule on a
 * tag's characters or length (`tags` is an array of plain strings), so the key is used as is.
 */
import { KEY_LABEL } from '../kit/ownership-labels.js';

const KEY_PREFIX = `${KEY_LABEL}:`;

/** The tag every cairn instance carries besides its key. */
export const MANAGED_TAG = 'managed-by:cairn';

/** The tag that holds `key`. */
export function tagForKey(key: string): string {
  return `${KEY_PREFIX}${key}`;
}

/** The key an instance was created under, from its tags; undefined for instances cairn did not make. */
export function keyFromTags(tags: readonly string[]): string | undefined {
  const found = tags.find((tag) => tag.startsWith(KEY_PREFIX));
  return found === undefined ? undefined : found.slice(KEY_PREFIX.length);
}
