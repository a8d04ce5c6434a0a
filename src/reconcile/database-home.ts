/**
 * @module Where a database lives: on its Server, through that server's provider's runtime; or,
 * when `managed: true`, at its Provider's managed database service, in the spec's region and
 * size. Both give the reconciler the same DatabaseRuntime.
 */
import type { DatabaseDesired, DatabaseRuntime, Placement } from '../drivers/contract.js';
import type { DatabaseSpec } from '../model/generated/kinds.js';
import type { StoredResource } from '../model/resource.js';
import type { ReconcileContext } from './context.js';
import { findDependency, requireReady } from './dependencies.js';
import { placementOf } from './placement.js';

export interface DatabaseHome {
  databases: DatabaseRuntime;
  placement: Placement;
  /** A managed database's region and size; absent on a server. */
  managed?: DatabaseDesired['managed'];
  /** Its vendor chooses the password, which cairn reads back (ManagedDatabaseDriver.choosesPasswords). */
  vendorChoosesPassword?: boolean;
  /** Who runs it, for messages: `digitalocean (Server/web-1)`, `digitalocean managed databases (Provider/do)`. */
  vendor: string;
}

const NO_SERVER: Placement = { serverExternalId: '', serverAddress: null };

/** The spec the database was last applied with, while it is deleted (it may have moved since); else its spec. */
export function specAtVendor(r: StoredResource<'Database'>, purpose: 'converge' | 'delete'): DatabaseSpec {
  const applied = r.status.appliedSpec as Partial<DatabaseSpec> | undefined;
  return purpose === 'delete' && applied !== undefined && typeof applied.type === 'string' ? (applied as DatabaseSpec) : r.spec;
}

export async function databaseHomeOf(ctx: ReconcileContext, r: StoredResource<'Database'>, spec: DatabaseSpec, purpose: 'converge' | 'delete'): Promise<DatabaseHome> {
  if (spec.managed === true) {
    const providerName = spec.provider ?? '';
    const provider = purpose === 'converge' ? requireReady(ctx, r, 'Provider', providerName) : findDependency(ctx, r, 'Provider', providerName);
    const service = await ctx.drivers.managedDatabasesFor(provider, spec.type);
    return {
      databases: service.databases,
      placement: NO_SERVER,
      managed: { region: spec.region ?? '', size: spec.size ?? '' },
      ...(service.choosesPasswords === true ? { vendorChoosesPassword: true } : {}),
      vendor: `${provider.spec.vendor} managed databases (Provider/${provider.name})`,
    };
  }
  const placed = await placementOf(ctx, r, spec.server ?? '', purpose);
  return { databases: placed.runtime.databases, placement: placed.placement, vendor: placed.vendor };
}
