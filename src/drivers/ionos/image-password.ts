/**
 * @module The password IONOS requires on a boot volume made from a public image
 * (`imagePassword`): a new random one for every create (32 characters from 24 random bytes, with
 * a letter of each case and a digit, only a-z, A-Z and 0-9, the document's rule for it), sent once and
 * never stored or logged. Users reach the server with the SSH keys cairn puts in its user data.
 */
import { randomBytes } from 'node:crypto';

export function newImagePassword(): string {
  return `${randomBytes(24).toString('base64').replace(/[^a-zA-Z0-9]/g, 'x')}aZ9`;
}
