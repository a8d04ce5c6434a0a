/**
 * @module Idempotency by tag at DigitalOcean, which takes no client token: every droplet cairn
 * creates carries the tag `cairn-key:<key>`, and a droplet whose create answer was lost is found
 * by that tag. DigitalOcean's tag names allow only letters, digits, `:`, `-` and `_` (at most
 * 255 characters, tags.yml's pattern), so a key that does not fit is tagged by its SHA-256
 * instead (`cairn-key-sha256:<hex>`), still one tag per key.
 */
import { createHash } from 'node:crypto';
import { KEY_LABEL } from '../kit/ownership-labels.js';

/** DigitalOcean's tag name pattern (resources/tags/models/tags.yml) and length limit. */
const TAG_NAME = /^[a-zA-Z0-9_\-:]+$/;
const TAG_MAX = 255;
const KEY_PREFIX = `${KEY_LABEL}:`;
const DIGEST_PREFIX = `${KEY_LABEL}-sha256:`;

/** The tag every cairn droplet carries besides its key. */
export const MANAGED_TAG = 'managed-by:cairn';

export function isTagName(tag: string): boolean {
  return TAG_NAME.test(tag) && tag.length <= TAG_MAX;
}

/** The tag that holds `key`: `cairn-key:<key>` when that is a valid tag name, else the key's digest. */
export function tagForKey(key: string): string {
  const plain = `${KEY_PREFIX}${key}`;
  if (isTagName(plain)) return plain;
  return `${DIGEST_PREFIX}${createHash('sha256').update(key).digest('hex')}`;
}

/**
 * The key a droplet was created under, from its tags: the key itself, or `sha256:<hex>` when it
 * had to be tagged by digest; undefined for droplets cairn did not make.
 */
export function keyFromTags(tags: readonly string[]): string | undefined {
  for (const tag of tags) {
    if (tag.startsWith(KEY_PREFIX)) return tag.slice(KEY_PREFIX.length);
    if (tag.startsWith(DIGEST_PREFIX)) return `sha256:${tag.slice(DIGEST_PREFIX.length)}`;
  }
  return undefined;
}
