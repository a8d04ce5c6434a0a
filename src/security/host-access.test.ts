import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { allowedSourcePath, localProviderRoleRefusal, migrationSourceRefusal, migrationSourcesRoot, tenantMayUseHost, tenantMigrationSources } from './host-access.js';

const root = mkdtempSync(join(tmpdir(), 'cairn-host-access-'));
const allowed = join(root, 'apps');
const outside = join(root, 'elsewhere');
mkdirSync(join(allowed, 'shop'), { recursive: true });
mkdirSync(outside, { recursive: true });
symlinkSync(outside, join(allowed, 'escape'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const env = { CAIRN_LOCAL_SOURCE_DIRS: allowed } as NodeJS.ProcessEnv;

describe('allowedSourcePath', () => {
  it('takes a directory inside an allowed one', () => {
    expect(allowedSourcePath(join(allowed, 'shop'), env)).toEqual({ path: join(allowed, 'shop') });
    expect(allowedSourcePath(allowed, env)).toEqual({ path: allowed });
  });

  it('refuses a directory outside, by `..` or by a symbolic link, naming the setting', () => {
    for (const path of ['/etc', join(allowed, '..', 'elsewhere'), join(allowed, 'escape'), `${allowed}-sibling`]) {
      const answer = allowedSourcePath(path, env);
      expect(answer, path).toHaveProperty('refusal');
      expect((answer as { refusal: string }).refusal).toMatch(/outside the directories apps may run from.*CAIRN_LOCAL_SOURCE_DIRS/);
    }
  });

  it('allows only the directory cairn started in by default', () => {
    expect(allowedSourcePath('/etc', {})).toHaveProperty('refusal');
    expect(allowedSourcePath('.', {})).toHaveProperty('path');
  });
});

describe('who may use the host', () => {
  it('is the default tenant unless the operator lists others, by id or name', () => {
    expect(tenantMayUseHost('default', 'default', {})).toBe(true);
    expect(tenantMayUseHost('3f1c', 'acme', {})).toBe(false);
    const listed = { CAIRN_LOCAL_VENDOR_TENANTS: 'acme, 77aa' } as NodeJS.ProcessEnv;
    expect(tenantMayUseHost('3f1c', 'acme', listed)).toBe(true);
    expect(tenantMayUseHost('77aa', undefined, listed)).toBe(true);
    expect(tenantMayUseHost('default', 'default', listed)).toBe(false);
    expect(tenantMayUseHost('default', 'default', { CAIRN_LOCAL_VENDOR_TENANTS: '' })).toBe(false);
  });

  it('within it, owners and admins only', () => {
    expect(localProviderRoleRefusal('owner')).toBeUndefined();
    expect(localProviderRoleRefusal('admin')).toBeUndefined();
    expect(localProviderRoleRefusal('member')).toMatch(/only owners and admins may/);
    expect(localProviderRoleRefusal('viewer')).toMatch(/role viewer/);
  });
});

describe('migration sources', () => {
  it('keeps each tenant to its own migrations\' unpacked sources, and leaves other paths to the runtime\'s checks', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cairn-migration-sources-'));
    try {
      const own = join(tenantMigrationSources(dataDir, 'tenant-a'), 'm-1', 'shop');
      const other = join(tenantMigrationSources(dataDir, 'tenant-b'), 'm-2', 'shop');
      expect(migrationSourceRefusal(dataDir, 'tenant-a', own)).toBeUndefined();
      expect(migrationSourceRefusal(dataDir, 'tenant-a', other)).toMatch(/another tenant's migration/);
      expect(migrationSourceRefusal(dataDir, 'tenant-a', join(migrationSourcesRoot(dataDir), 'tenant-a', '..', 'tenant-b', 'x'))).toMatch(/another tenant's migration/);
      expect(migrationSourceRefusal(dataDir, 'tenant-a', '/srv/apps/shop')).toBeUndefined();
      // The runtime allows the root it is given besides the operator's directories, and nothing else more.
      expect(allowedSourcePath(own, { CAIRN_LOCAL_SOURCE_DIRS: allowed }, [migrationSourcesRoot(dataDir)])).toEqual({ path: own });
      expect(allowedSourcePath(own, { CAIRN_LOCAL_SOURCE_DIRS: allowed })).toHaveProperty('refusal');
      expect(() => tenantMigrationSources(dataDir, '../escape')).toThrow(/cannot name a directory/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
