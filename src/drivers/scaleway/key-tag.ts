/**
 * @module Idempotency by tag at Scaleway, which takes no client token: every server cairn creates
 * carries the tag `cairn-key=<key>` (and `managed-by=cairn`), and a server whose create answer
 * was lost is found by that tag (`ListServers?tags=`, which matches exact tags). Scaleway's tags
 * are free strings, but that filter separates several tags with commas, so a tag must hold
 * none; cairn's keys (`cairn-<uid>-<incarnation>`) never do, and one that did is refused.
 */
import { VendorRejectedError } from '../errors.js';
import { KEY_LABEL } from '../kit/ownership-labels.js';

const KEY_PREFIX = `${KEY_LABEL}=`;

/** The tag every cairn server carries besides its key. */
export const MANAGED_TAG = 'managed-by=cairn';

/** The tag that holds `key`. */
export function tagForKey(key: string): string {
  if (key.includes(',')) throw new VendorRejectedError(`scaleway: the idempotency key "${key}" holds a comma, which Scaleway's tag filter cannot match`, { field: 'key' });
  return `${KEY_PREFIX}${key}`;
}

/** The key a server was created under, from its tags; undefined for servers cairn did not make. */
export function keyFromTags(tags: readonly string[]): string | undefined {
  const found = tags.find((tag) => tag.startsWith(KEY_PREFIX));
  return found === undefined ? undefined : found.slice(KEY_PREFIX.length);
}
