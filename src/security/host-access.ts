/**
 * @module Who may touch cairn's host. The host is the operator's: the `local` vendor (apps run
 * as processes here, databases as clusters here) and `credentialsRef.env` (cairn's own
 * environment) are open only to the tenants the operator lists in CAIRN_LOCAL_VENDOR_TENANTS
 * (`serve --local-vendor-tenants`; default `default`, so the quickstart works as it is), and
 * within those only to owners and admins when they declare a `local` Provider. An app of the
 * local vendor takes `source.path` only from the directories in CAIRN_LOCAL_SOURCE_DIRS
 * (default: the directory cairn was started in), and from the directory a migration unpacked a
 * platform's source tarball into (`<data dir>/migration-sources/<tenant>/<migration id>/`): the
 * runtime allows that root, the reconciler (which knows the tenant) only the App's own tenant's part.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Role } from '../auth/roles.js';

export const LOCAL_VENDOR_TENANTS_SETTING = 'CAIRN_LOCAL_VENDOR_TENANTS';
export const LOCAL_SOURCE_DIRS_SETTING = 'CAIRN_LOCAL_SOURCE_DIRS';
export const LOCAL_VENDOR = 'local';

/** The roles that may declare a `local` Provider in a tenant the operator allows. */
const HOST_ROLES: ReadonlySet<Role> = new Set<Role>(['owner', 'admin']);

/** The directory cairn was started in (read before anything could change it). */
const startedIn = process.cwd();

function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** The tenants (ids or names) the operator lets use the host. */
export function hostTenants(env: NodeJS.ProcessEnv = process.env): ReadonlySet<string> {
  const value = env[LOCAL_VENDOR_TENANTS_SETTING];
  return new Set(value === undefined ? ['default'] : list(value));
}

/** Whether the tenant (by its id or its name) may use the host. */
export function tenantMayUseHost(tenantId: string, tenantName: string | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  const allowed = hostTenants(env);
  return allowed.has(tenantId) || (tenantName !== undefined && allowed.has(tenantName));
}

/** Why the tenant may not use the local vendor, naming the setting that would allow it. */
export function localVendorRefusal(tenantLabel: string): string {
  return (
    `tenant "${tenantLabel}" may not use the local vendor: it runs commands on cairn's own host, so the operator allows it per tenant ` +
    `with ${LOCAL_VENDOR_TENANTS_SETTING} (serve --local-vendor-tenants); use a cloud vendor instead`
  );
}

/** Why the tenant may not read cairn's environment through credentialsRef.env. */
export function environmentRefusal(tenantLabel: string, variable: string): string {
  return (
    `tenant "${tenantLabel}" may not read cairn's environment (credentialsRef.env names ${variable}): only tenants listed in ` +
    `${LOCAL_VENDOR_TENANTS_SETTING} may; store the credentials with POST /api/v1/providers and use credentialsRef.secret`
  );
}

/** Why this role may not declare a `local` Provider, or undefined when it may. */
export function localProviderRoleRefusal(role: Role): string | undefined {
  if (HOST_ROLES.has(role)) return undefined;
  return `role ${role} may not declare a Provider of the local vendor: it runs commands on cairn's own host, so only owners and admins may`;
}

/** The directories apps of the local vendor may take `source.path` from, resolved. */
export function localSourceDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const given = list(env[LOCAL_SOURCE_DIRS_SETTING]);
  return (given.length > 0 ? given : [startedIn]).map((dir) => realOrResolved(resolve(startedIn, dir)));
}

function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Where migrations unpack the source tarballs of platform apps, under the data dir. */
export function migrationSourcesRoot(dataDir: string): string {
  return join(realOrResolved(resolve(dataDir)), 'migration-sources');
}

/** The part of that root one tenant's migrations use. */
export function tenantMigrationSources(dataDir: string, tenant: string): string {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(tenant)) throw new Error(`tenant id ${JSON.stringify(tenant)} cannot name a directory`);
  return join(migrationSourcesRoot(dataDir), tenant);
}

/**
 * Why an App of `tenant` may not take `sourcePath`: it lies in another tenant's migration
 * sources; undefined when it does not (the runtime's own checks still apply).
 */
export function migrationSourceRefusal(dataDir: string, tenant: string, sourcePath: string): string | undefined {
  const root = migrationSourcesRoot(dataDir);
  const path = realOrResolved(resolve(startedIn, sourcePath));
  if (!inside(root, path) || inside(tenantMigrationSources(dataDir, tenant), path)) return undefined;
  return `spec.source.path ${sourcePath} is the source of another tenant's migration`;
}

function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

/**
 * The real directory `sourcePath` names (relative to where cairn started; symbolic links
 * followed), or a message saying why it may not be used.
 */
export function allowedSourcePath(
  sourcePath: string,
  env: NodeJS.ProcessEnv = process.env,
  /** Directories the runtime allows besides the operator's (the data dir's migration sources). */
  alsoAllowed: readonly string[] = [],
): { path: string } | { refusal: string } {
  const dirs = [...localSourceDirs(env), ...alsoAllowed];
  const path = realOrResolved(resolve(startedIn, sourcePath));
  if (dirs.some((dir) => inside(dir, path))) return { path };
  return {
    refusal:
      `spec.source.path ${sourcePath} is outside the directories apps may run from (${dirs.join(', ')}); ` +
      `the operator sets them with ${LOCAL_SOURCE_DIRS_SETTING}`,
  };
}
