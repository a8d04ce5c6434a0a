/**
 * @module Tests of `cairn users add` and `cairn users list` through the real executable: the
 * password from stdin, refusal of short ones, an existing account joining another tenant.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCairn } from '../../../test/support/cairn-process.js';
import { AuthService } from '../../auth/auth-service.js';
import { Store } from '../../store/store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-users-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function signIn(email: string, password: string, tenant?: string): Promise<{ tenant: string; role: string }> {
  const store = Store.open(dir);
  try {
    const auth = await AuthService.open(store);
    const pair = await auth.login(email, password, '127.0.0.1', tenant);
    const principal = await auth.authenticate(`Bearer ${pair.access_token}`);
    return { tenant: store.tenants.get(principal.tenant)!.name, role: principal.role };
  } finally {
    store.close();
  }
}

describe('cairn users', () => {
  it('adds a user whose password is the first line of stdin, who can then sign in', async () => {
    const result = await runCairn(['users', 'add', '--email', 'Ada@Example.com', '--role', 'owner', '--data-dir', dir], {
      input: 'correct horse battery\nignored second line\n',
    });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('added ada@example.com to tenant default as owner\n');
    expect(result.code).toBe(0);
    await expect(signIn('ada@example.com', 'correct horse battery')).resolves.toEqual({ tenant: 'default', role: 'owner' });
  });

  it('refuses a password shorter than 12 characters, adding nobody', async () => {
    const result = await runCairn(['users', 'add', '--email', 'bob@example.com', '--role', 'member', '--data-dir', dir], { input: 'too short\n' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('Error: the password must be at least 12 characters long (it has 9)\n');
    const list = await runCairn(['users', 'list', '--data-dir', dir]);
    expect(list.stdout).toContain('No users.');
  });

  it('refuses a missing password and an unknown role with a clear message', async () => {
    const noPassword = await runCairn(['users', 'add', '--email', 'bob@example.com', '--role', 'member', '--data-dir', dir], { input: '' });
    expect(noPassword.code).toBe(1);
    expect(noPassword.stderr).toContain('Error: no password on stdin');
    const badRole = await runCairn(['users', 'add', '--email', 'bob@example.com', '--role', 'root', '--data-dir', dir], { input: 'correct horse battery\n' });
    expect(badRole.code).toBe(1);
    expect(badRole.stderr).toBe('Error: --role must be one of owner, admin, member, viewer, got "root"\n');
  });

  it('adds an existing email to another tenant as a membership, keeping the password', async () => {
    await runCairn(['users', 'add', '--email', 'ada@example.com', '--role', 'viewer', '--data-dir', dir], { input: 'correct horse battery\n' });
    const again = await runCairn(['users', 'add', '--email', 'ADA@example.com', '--role', 'admin', '--tenant', 'acme', '--data-dir', dir]);
    expect(again.stdout).toBe('added existing user ada@example.com to tenant acme (new) as admin (their password is unchanged)\n');
    expect(again.code).toBe(0);
    await expect(signIn('ada@example.com', 'correct horse battery', 'acme')).resolves.toEqual({ tenant: 'acme', role: 'admin' });
    await expect(signIn('ada@example.com', 'correct horse battery', 'default')).resolves.toEqual({ tenant: 'default', role: 'viewer' });

    const list = await runCairn(['users', 'list', '--data-dir', dir]);
    expect(list.code).toBe(0);
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^EMAIL\s+TENANT\s+ROLE\s+CREATED$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 3))).toEqual([
      ['ada@example.com', 'acme', 'admin'],
      ['ada@example.com', 'default', 'viewer'],
    ]);
    const json = JSON.parse((await runCairn(['users', 'list', '-o', 'json', '--data-dir', dir])).stdout) as { items: unknown[] };
    expect(json.items).toHaveLength(2);
  });
});
