/**
 * @module Idempotency for Linode's managed databases, which take neither a client token nor
 * tags: the key rides in the label. A database's label is `<name>-<digest>`, where the digest
 * is the first 12 hex digits of the key's SHA-256, the name made a valid Linode label and cut so
 * the whole stays within the document's 3 to 32 characters. A create whose answer was lost is
 * found by that ending among the account's databases; the key itself cannot be read back from a
 * digest, so a database's key is the one the caller looks for, else `sha256:<digest>`.
 */
import { createHash } from 'node:crypto';
import { linodeLabel } from './label.js';

/** Linode's managed database label limit (post-databases-postgre-sql-instances `label.maxLength`). */
export const DATABASE_LABEL_MAX = 32;
const DIGEST_LENGTH = 12;

function digestOf(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, DIGEST_LENGTH);
}

/** The label of the database `name` created under `key`: always the same for the same two. */
export function databaseLabel(name: string, key: string): string {
  const room = DATABASE_LABEL_MAX - DIGEST_LENGTH - 1;
  const base = linodeLabel(name).slice(0, room).replace(/[-_.]+$/, '');
  return `${base}-${digestOf(key)}`;
}

/** Whether `label` is one cairn gave a database created under `key`. */
export function labelCarriesKey(label: string, key: string): boolean {
  return key !== '' && label.endsWith(`-${digestOf(key)}`);
}

/** The key a database was made under, as far as its label tells: `known` when it carries it, else the digest, else ''. */
export function keyFromLabel(label: string, known?: string): string {
  if (known !== undefined && labelCarriesKey(label, known)) return known;
  const digest = new RegExp(`-([0-9a-f]{${DIGEST_LENGTH}})$`).exec(label)?.[1];
  return digest === undefined ? '' : `sha256:${digest}`;
}
