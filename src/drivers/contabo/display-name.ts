/**
 * @module Idempotency at Contabo, whose instances carry no labels or tags of their own in its
 * document (tags are separate resources assigned afterwards, a second call a crash can split):
 * the idempotency key travels in the instance's display name, `<name> [cairn-key=<key>]`, set in
 * the same create call. An instance whose create answer was lost is found by the list's full-text
 * search for the key (`retrieveInstancesList?search=`, which searches display names), its display
 * name then read exactly: a search hit that does not carry the key exactly is not taken.
 */
import { KEY_LABEL } from '../kit/ownership-labels.js';
import { VendorRejectedError } from '../errors.js';

/** Contabo's longest display name (its document: maxLength 255). */
const MAX_LENGTH = 255;
const PATTERN = new RegExp(`^(.*) \\[${KEY_LABEL}=([^\\]]+)\\]$`);

export function displayNameFor(name: string, key: string): string {
  const displayName = `${name} [${KEY_LABEL}=${key}]`;
  if (displayName.length > MAX_LENGTH) {
    throw new VendorRejectedError(`contabo: the display name "${displayName}" (the name and cairn's key) is longer than Contabo's ${MAX_LENGTH} characters; use a shorter name`, { field: 'name' });
  }
  return displayName;
}

/** The name and key in a display name; an instance cairn did not make has no key. */
export function readDisplayName(displayName: string): { name: string; key: string | undefined } {
  const match = PATTERN.exec(displayName);
  return match ? { name: match[1] ?? '', key: match[2] } : { name: displayName, key: undefined };
}
