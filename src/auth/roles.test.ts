/** @module Tests of what each role may do (API.md "Auth"). */
import { describe, expect, it } from 'vitest';
import { ROLES, roleAllows, roleAtMost, type Permission } from './roles.js';

const PERMISSIONS: Permission[] = ['read', 'write', 'read_credentials', 'manage_tokens', 'manage_members', 'manage_billing'];

describe('roles', () => {
  it('grant what API.md says', () => {
    const table = Object.fromEntries(ROLES.map((role) => [role, PERMISSIONS.filter((p) => roleAllows(role, p))]));
    expect(table).toEqual({
      owner: PERMISSIONS,
      admin: ['read', 'write', 'read_credentials', 'manage_tokens'],
      member: ['read', 'write', 'read_credentials', 'manage_tokens'],
      viewer: ['read'],
    });
  });

  it('are ordered owner > admin > member > viewer', () => {
    expect(roleAtMost('viewer', 'member')).toBe(true);
    expect(roleAtMost('member', 'member')).toBe(true);
    expect(roleAtMost('admin', 'member')).toBe(false);
    expect(roleAtMost('owner', 'admin')).toBe(false);
  });
});
