/**
 * @module Adding users to tenants (the `cairn users add` command, later member management):
 * a new email gets an account with a scrypt-hashed password; an existing one keeps its
 * password and gains (or changes) its membership. A missing tenant is created.
 */
import { ValidationError, type FieldIssue } from '../model/errors.js';
import type { Store } from '../store/store.js';
import { normalizeEmail } from '../store/users.js';
import { hashPassword, passwordProblem } from './passwords.js';
import { isRole, type Role } from './roles.js';

export const DEFAULT_TENANT_NAME = 'default';
const TENANT_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export interface NewUser {
  email: string;
  /** Needed for a new account; ignored (the password stays) when the email has one. */
  password?: string;
  role: Role;
  /** Default `default`. */
  tenantName?: string;
}

export interface AddedUser {
  user: { id: string; email: string };
  tenant: { id: string; name: string };
  role: Role;
  /** True when the account was created now. */
  createdUser: boolean;
  createdTenant: boolean;
  /** The role held in the tenant before, when the user was a member already. */
  previousRole: Role | null;
}

export async function addUser(store: Store, input: NewUser, actor: string): Promise<AddedUser> {
  const email = normalizeEmail(input.email ?? '');
  const tenantName = input.tenantName ?? DEFAULT_TENANT_NAME;
  const issues: FieldIssue[] = [];
  if (!EMAIL.test(email) || email.length > 254) issues.push({ pointer: '/email', message: 'must be an email address' });
  if (!isRole(input.role)) issues.push({ pointer: '/role', message: 'must be one of owner, admin, member, viewer' });
  if (!TENANT_NAME.test(tenantName)) issues.push({ pointer: '/tenant', message: 'must be a DNS label: 1–63 lower-case letters, digits and dashes' });
  const existing = store.users.findByEmail(email);
  if (!existing) {
    const problem = input.password === undefined ? 'is needed for a new user' : passwordProblem(input.password);
    if (problem) issues.push({ pointer: '/password', message: problem });
  }
  if (issues.length > 0) throw new ValidationError(issues.map((i) => `${i.pointer.slice(1)} ${i.message}`).join('; '), issues);

  const passwordHash = existing ? undefined : await hashPassword(input.password!);
  return store.transaction((): AddedUser => {
    const { tenant, created: createdTenant } = store.tenants.findOrCreate(tenantName);
    const found = store.users.findByEmail(email);
    if (!found && passwordHash === undefined) throw new ValidationError('password is needed for a new user', [{ pointer: '/password', message: 'is needed for a new user' }]);
    const user = found ?? store.users.create(email, passwordHash!);
    const previousRole = store.users.setRole(tenant.id, user.id, input.role) ?? null;
    if (previousRole !== input.role) {
      store.auditLog.append({ tenant: tenant.id, actor, action: previousRole ? 'membership.update' : 'membership.create', target: `user:${user.id}` });
    }
    return { user: { id: user.id, email: user.email }, tenant: { id: tenant.id, name: tenant.name }, role: input.role, createdUser: !found, createdTenant, previousRole };
  });
}
