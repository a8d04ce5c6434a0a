/**
 * @module Idempotency at IONOS, which takes no client token and keeps labels as separate
 * resources (a second call a crash can split from the create): the idempotency key travels in the
 * server's name, `<name> [cairn-key=<key>]`, set in the create call itself. The document gives
 * server lists no name filter, so a server whose create answer was lost is found by reading the
 * lists of cairn's data centers and matching that name exactly.
 */
import { KEY_LABEL } from '../kit/ownership-labels.js';

const PATTERN = new RegExp(`^(.*) \\[${KEY_LABEL}=([^\\]]+)\\]$`);

export function serverNameFor(name: string, key: string): string {
  return `${name} [${KEY_LABEL}=${key}]`;
}

/** The name and key in a server's name; a server cairn did not make has no key. */
export function readServerName(serverName: string): { name: string; key: string | undefined } {
  const match = PATTERN.exec(serverName);
  return match ? { name: match[1] ?? '', key: match[2] } : { name: serverName, key: undefined };
}
