/**
 * @module Reaching the vendor of a database or app from a request (for credentials and logs):
 * its server, that server's provider, the provider's runtime, and the thing's vendor id; for a
 * managed database, its provider's managed database service.
 */
import type { DatabaseRuntime, RuntimeDriver } from '../drivers/contract.js';
import { ConflictError } from '../model/errors.js';
import type { StoredResource } from '../model/resource.js';
import type { DriverPool } from '../reconcile/driver-pool.js';
import type { ResourceLookup } from './records/lookup.js';

export async function runtimeOf(
  drivers: DriverPool,
  lookup: ResourceLookup,
  placed: StoredResource<'Database'> | StoredResource<'App'>,
): Promise<{ runtime: RuntimeDriver; externalId: string }> {
  const noun = placed.kind === 'Database' ? 'database' : 'app';
  const externalId = placed.status.externalId;
  if (!externalId) {
    throw new ConflictError(`${noun} ${placed.name} does not exist at its provider yet (status ${placed.status.phase}); try again once it does`);
  }
  const serverId = placed.spec.server === undefined ? null : lookup.idOf('Server', placed.spec.server, placed.namespace);
  const server = serverId === null ? undefined : lookup.byId('Server', serverId);
  const providerId = server ? lookup.idOf('Provider', server.spec.provider, server.namespace) : null;
  if (!server || providerId === null) throw new ConflictError(`${noun} ${placed.name} is not placed on an existing server`);
  return { runtime: await drivers.runtimeFor(lookup.byId('Provider', providerId)), externalId };
}

/** The databases runtime holding a database: its server's runtime, or its provider's managed service. */
export async function databaseRuntimeOf(
  drivers: DriverPool,
  lookup: ResourceLookup,
  db: StoredResource<'Database'>,
): Promise<{ databases: DatabaseRuntime; externalId: string }> {
  if (db.spec.managed !== true) {
    const { runtime, externalId } = await runtimeOf(drivers, lookup, db);
    return { databases: runtime.databases, externalId };
  }
  const externalId = db.status.externalId;
  if (!externalId) throw new ConflictError(`database ${db.name} does not exist at its provider yet (status ${db.status.phase}); try again once it does`);
  const providerId = lookup.idOf('Provider', db.spec.provider ?? '', db.namespace);
  if (providerId === null) throw new ConflictError(`database ${db.name} names provider ${db.spec.provider ?? ''}, which does not exist`);
  const service = await drivers.managedDatabasesFor(lookup.byId('Provider', providerId));
  return { databases: service.databases, externalId };
}
