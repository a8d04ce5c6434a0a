/**
 * @module Idempotency by reference at Leaseweb, which takes no client token and has no tags: an
 * instance's only free text is its `reference` ("an identifying name you can refer to the
 * instance"), so cairn writes the server's name and its key there, `<name> cairn-key:<key>`, and
 * one whose create answer was lost is found by that key. A key longer than 44 characters is
 * written as its digest (`cairn-key-h:<first 32 hex digits of its SHA-256>`), so a reference stays
 * within 128 characters: Leaseweb's document states no limit, and this keeps well inside the
 * 255 its console shows.
 */
import { createHash } from 'node:crypto';
import { KEY_LABEL } from '../kit/ownership-labels.js';

const KEY_PREFIX = `${KEY_LABEL}:`;
const DIGEST_PREFIX = `${KEY_LABEL}-h:`;
/** The longest key written as it is. */
const PLAIN_KEY_MAX = 44;
/** The longest name kept in a reference. */
export const NAME_MAX = 63;

/** The key's part of a reference: `cairn-key:<key>`, or its digest for a long key. */
export function keyMark(key: string): string {
  if (key.length <= PLAIN_KEY_MAX) return `${KEY_PREFIX}${key}`;
  return `${DIGEST_PREFIX}${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
}

/** The reference of a server cairn creates: its name, a space, its key mark. */
export function referenceFor(name: string, key: string): string {
  return `${name.slice(0, NAME_MAX)} ${keyMark(key)}`;
}

/** Whether the instance with this reference was created under `key`. */
export function carriesKey(reference: string | null, key: string): boolean {
  return reference !== null && reference.endsWith(` ${keyMark(key)}`);
}

/**
 * The name and key of a reference: the key itself for a plain mark, `known` when its digest is
 * the mark, `sha256:<hex>` for another key's digest; no key for instances cairn did not make
 * (their name is the whole reference).
 */
export function readReference(reference: string | null, known?: string): { name: string; key: string | undefined } {
  if (reference === null) return { name: '', key: undefined };
  const at = reference.lastIndexOf(' ');
  const mark = at < 0 ? '' : reference.slice(at + 1);
  const name = reference.slice(0, Math.max(at, 0));
  if (known !== undefined && known !== '' && mark === keyMark(known)) return { name, key: known };
  if (mark.startsWith(KEY_PREFIX)) return { name, key: mark.slice(KEY_PREFIX.length) };
  if (mark.startsWith(DIGEST_PREFIX)) return { name, key: `sha256:${mark.slice(DIGEST_PREFIX.length)}` };
  return { name: reference, key: undefined };
}
