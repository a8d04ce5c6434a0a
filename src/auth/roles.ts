/**
 * @module Roles per tenant and what each may do (API.md "Auth"). Owners do everything; admins
 * everything but billing and members; members create and operate resources, read credentials
 * and manage their own API tokens; viewers only read, never credentials.
 *
 * API tokens: anyone with `manage_tokens` (owner, admin, member) may create them, with a role no
 * higher than their own; members see and revoke only the tokens they created, owners and admins
 * all of the tenant's. A token never acts above its creator's current role.
 */

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export type Permission = 'read' | 'write' | 'read_credentials' | 'manage_tokens' | 'manage_members' | 'manage_billing';

const ALLOWED: Record<Role, ReadonlySet<Permission>> = {
  owner: new Set<Permission>(['read', 'write', 'read_credentials', 'manage_tokens', 'manage_members', 'manage_billing']),
  admin: new Set<Permission>(['read', 'write', 'read_credentials', 'manage_tokens']),
  member: new Set<Permission>(['read', 'write', 'read_credentials', 'manage_tokens']),
  viewer: new Set<Permission>(['read']),
};

const RANK: Record<Role, number> = { owner: 4, admin: 3, member: 2, viewer: 1 };

export function roleAllows(role: Role, permission: Permission): boolean {
  return ALLOWED[role].has(permission);
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** True when `role` grants no more than `limit`. */
export function roleAtMost(role: Role, limit: Role): boolean {
  return RANK[role] <= RANK[limit];
}

/** The lower of two roles. */
export function lowerRole(a: Role, b: Role): Role {
  return RANK[a] <= RANK[b] ? a : b;
}

/** Whether the role sees and revokes every API token of its tenant, not only its own. */
export function managesAllTokens(role: Role): boolean {
  return RANK[role] >= RANK.admin;
}
