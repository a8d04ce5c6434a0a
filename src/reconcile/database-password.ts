/**
 * @module Database passwords: cairn generates them (random, URL-safe) and keeps them only
 * encrypted, under purpose `database-password` and the Database's uid. One password per
 * incarnation, stored before the vendor's create so a retry after a crash sends the same one.
 * A new one (rotation) is stored under `<uid>:pending` until the vendor has it, then promoted.
 */
import { randomBytes } from 'node:crypto';
import type { ResourceIdentity } from '../model/resource.js';
import type { ReconcileContext } from './context.js';
import { attempt, type Attempt } from './record-steps.js';

export const DATABASE_PASSWORD = 'database-password';

/**
 * Every character class a vendor's password rule may ask for (Scaleway's managed databases: a
 * digit, an upper-case and a lower-case letter and a special character); `-` and `_` are the
 * special characters of the URL-safe alphabet.
 */
const CLASSES = [/[0-9]/, /[A-Z]/, /[a-z]/, /[-_]/];

/**
 * 32 URL-safe characters (192 random bits) holding a digit, an upper-case and a lower-case
 * letter and a `-` or `_`: drawn again until they do (about 1.6 draws on average; a uniform
 * choice among the passwords that do, so under a bit of entropy is lost).
 */
export function generatePassword(): string {
  for (;;) {
    const password = randomBytes(24).toString('base64url');
    if (CLASSES.every((c) => c.test(password))) return password;
  }
}

function pendingName(uid: string): string {
  return `${uid}:pending`;
}

/** The database's current password, if one is stored. */
export function storedPassword(ctx: ReconcileContext, r: ResourceIdentity): string | undefined {
  return ctx.store.secrets.get(r.tenant, DATABASE_PASSWORD, r.uid);
}

/** The password to create the database with: the stored one, or a new one stored first. */
export function passwordForCreate(ctx: ReconcileContext, r: ResourceIdentity): string {
  const existing = storedPassword(ctx, r);
  if (existing !== undefined) return existing;
  const password = generatePassword();
  ctx.store.secrets.put(r.tenant, DATABASE_PASSWORD, r.uid, password);
  return password;
}

/** Forgets the passwords (the vendor's database is gone, or the resource is). */
export function forgetPasswords(ctx: ReconcileContext, r: ResourceIdentity): void {
  ctx.store.secrets.delete(r.tenant, DATABASE_PASSWORD, r.uid);
  ctx.store.secrets.delete(r.tenant, DATABASE_PASSWORD, pendingName(r.uid));
}

/**
 * Gives the database a new password, crash-safe: the new one is stored as pending first, set at
 * the vendor (setting the same one again is harmless), then promoted — together with
 * `onPromoted`'s writes, in one transaction. After a crash the pending one is sent again, so no
 * second password is made. A vendor refusal drops the pending one and is returned.
 */
export async function replacePassword(
  ctx: ReconcileContext,
  r: ResourceIdentity,
  setPassword: (password: string) => Promise<void>,
  onPromoted: () => void,
): Promise<Attempt<void>> {
  const secrets = ctx.store.secrets;
  let next = secrets.get(r.tenant, DATABASE_PASSWORD, pendingName(r.uid));
  if (next === undefined) {
    next = generatePassword();
    secrets.put(r.tenant, DATABASE_PASSWORD, pendingName(r.uid), next);
  }
  const password = next;
  const set = await attempt('set password', () => setPassword(password));
  if (!set.ok) {
    secrets.delete(r.tenant, DATABASE_PASSWORD, pendingName(r.uid));
    return set;
  }
  ctx.store.transaction(() => {
    secrets.put(r.tenant, DATABASE_PASSWORD, r.uid, password);
    secrets.delete(r.tenant, DATABASE_PASSWORD, pendingName(r.uid));
    onPromoted();
  });
  return set;
}
