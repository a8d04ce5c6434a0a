/**
 * @module The root password Linode requires when a Linode is made from an image: a new random
 * one for every create (32 characters from 24 random bytes, with a letter of each case, a digit
 * and a symbol, so it passes Linode's strength score), sent once and never stored or logged.
 * Users reach the server with the SSH keys cairn puts in its user data, not with this password.
 */
import { randomBytes } from 'node:crypto';

export function newRootPassword(): string {
  return `${randomBytes(24).toString('base64url')}aZ9!`;
}
