/**
 * @module Idempotency by tag at Linode, which takes no client token: every Linode cairn creates
 * carries the tag `cairn-key:<key>` (and `managed-by:cairn`), and one whose create answer was
 * lost is found by that tag (`get-linode-instances` with `X-Filter: {"tags": "<tag>"}`). A
 * Linode tag is 3 to 50 characters (the document's `post-tag` label), and cairn's keys
 * (`cairn-<uid>-<n>`) are often longer, so a key that does not fit is tagged by a digest instead
 * (`cairn-key-h:<first 32 hex digits of its SHA-256>`, 44 characters), still one tag per key.
 */
import { createHash } from 'node:crypto';
import { KEY_LABEL } from '../kit/ownership-labels.js';

/** Linode's tag length limit. */
export const TAG_MAX = 50;
const KEY_PREFIX = `${KEY_LABEL}:`;
const DIGEST_PREFIX = `${KEY_LABEL}-h:`;

/** The tag every cairn Linode carries besides its key. */
export const MANAGED_TAG = 'managed-by:cairn';

/** The tag that holds `key`: `cairn-key:<key>` when it fits in a tag, else the key's digest. */
export function tagForKey(key: string): string {
  const plain = `${KEY_PREFIX}${key}`;
  if (plain.length <= TAG_MAX) return plain;
  return `${DIGEST_PREFIX}${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
}

/**
 * The key a Linode was created under, from its tags: `known` when its tag is among them (a digest
 * cannot be read back, so the caller says which key it looks for), the key itself for a plain
 * tag, `sha256:<hex>` for a digest tag of another key; undefined for Linodes cairn did not make.
 */
export function keyFromTags(tags: readonly string[], known?: string): string | undefined {
  if (known !== undefined && known !== '' && tags.includes(tagForKey(known))) return known;
  for (const tag of tags) {
    if (tag.startsWith(KEY_PREFIX)) return tag.slice(KEY_PREFIX.length);
    if (tag.startsWith(DIGEST_PREFIX)) return `sha256:${tag.slice(DIGEST_PREFIX.length)}`;
  }
  return undefined;
}
