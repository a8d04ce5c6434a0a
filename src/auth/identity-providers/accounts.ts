/**
 * @module Which cairn user an identity a provider vouched for belongs to: one linked before;
 * else the user with the same e-mail, when (and only when) the provider verified that e-mail,
 * which links it; else, when CAIRN_SIGNUP is on, a new user without a password in a tenant of
 * their own, as its owner. Anything else is refused (403) and creates nothing.
 */
import { randomBytes } from 'node:crypto';
import { ForbiddenError } from '../../model/errors.js';
import type { Store } from '../../store/store.js';
import type { ProviderIdentity } from './provider-identity.js';
import { displayName, SIGNUP_SETTING } from './settings.js';

export interface ResolvedAccount {
  userId: string;
  /** How the identity met the user this time. */
  outcome: 'signed-in' | 'linked' | 'signed-up';
}

/** A tenant name for a new account: the e-mail's local part as a DNS label, and a random suffix. */
function newTenantName(email: string): string {
  const base = email.split('@')[0]!.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'user';
  return `${base}-${randomBytes(3).toString('hex')}`;
}

export function resolveAccount(store: Store, identity: ProviderIdentity, options: { signup: boolean; now: string }): ResolvedAccount {
  const provider = displayName(identity.provider);
  return store.transaction((): ResolvedAccount => {
    const linked = store.identities.find(identity.provider, identity.subject);
    if (linked) {
      store.identities.touch(linked.id, identity.email ?? linked.email, options.now);
      return { userId: linked.userId, outcome: 'signed-in' };
    }
    if (identity.email === null || !identity.emailVerified) {
      throw new ForbiddenError(
        `${provider} has not verified ${identity.email === null ? 'an e-mail address for this account' : `the e-mail ${identity.email}`}; ` +
          `cairn signs in only with an e-mail the provider verified: verify it at ${provider} (make it the primary one) and sign in again`,
      );
    }
    const email = identity.email;
    const existing = store.users.findByEmail(email);
    if (existing) {
      store.identities.link({ provider: identity.provider, subject: identity.subject, userId: existing.id, email, now: options.now });
      for (const membership of store.users.memberships(existing.id)) {
        store.auditLog.append({ tenant: membership.tenantId, actor: `user:${existing.id}`, action: 'identity.link', target: `${identity.provider}:${identity.subject}` });
      }
      return { userId: existing.id, outcome: 'linked' };
    }
    if (!options.signup) {
      throw new ForbiddenError(
        `no cairn account has the e-mail ${email}, and sign-up is off on this cairn (${SIGNUP_SETTING}); ask an owner to add you (cairn users add --email ${email}), then sign in through ${provider} again`,
      );
    }
    const { tenant } = store.tenants.findOrCreate(newTenantName(email));
    const user = store.users.create(email, '');
    store.users.setRole(tenant.id, user.id, 'owner');
    store.identities.link({ provider: identity.provider, subject: identity.subject, userId: user.id, email, now: options.now });
    store.auditLog.append({ tenant: tenant.id, actor: `user:${user.id}`, action: 'user.signup', target: `${identity.provider}:${identity.subject}` });
    return { userId: user.id, outcome: 'signed-up' };
  });
}
