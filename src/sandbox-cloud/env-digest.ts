/**
 * @module App environments as the sandbox keeps them: the keys, and for each value only its
 * SHA-256 digest (`sha256:<hex>`). The sandbox runs nothing, so it never needs a value back, and
 * secrets cairn injects (a DATABASE_URL with its password) never sit in plaintext in its file.
 */
import { createHash } from 'node:crypto';

export function digestValue(value: string): string {
  return `sha256:${createHash('sha256').update(value, 'utf8').digest('hex')}`;
}

/** The same keys, each value replaced by its digest. */
export function digestEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, digestValue(value)]));
}
