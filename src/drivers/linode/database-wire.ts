/**
 * @module Linode's managed PostgreSQL databases read into cairn's driver types: an instance's
 * status, type (cairn's `size`), major version, key (from its label) and host, its credentials
 * as the endpoint with the password Linode chose, and the offer cairn checks before a create:
 * the PostgreSQL engines (`get-databases-engines`), the types with a one-node PostgreSQL price
 * (`get-databases-types`) and the regions with the `Managed Databases` capability.
 */
import type { DatabaseEndpoint, DatabaseObserved, VendorDatabaseStatus } from '../contract.js';
import type { WireReader } from '../kit/wire-reader.js';
import { keyFromLabel } from './database-label.js';

/**
 * Linode's statuses as cairn's. A database being updated (resized) still takes connections, so
 * it counts as available (`update` waits for `active` itself); the ones not listed (failed,
 * degraded, suspending, suspended) are errors, with Linode's word for them.
 */
const STATUS: Readonly<Record<string, VendorDatabaseStatus>> = {
  provisioning: 'creating',
  resuming: 'creating',
  active: 'available',
  updating: 'available',
  backing_up: 'backing_up',
  restoring: 'restoring',
};

/**
 * The database PostgreSQL clients connect to by default on Linode's managed PostgreSQL (its
 * connection guide; the document does not name one).
 */
export const DEFAULT_DATABASE = 'defaultdb';

/** `16.4` → `16`: cairn's version of PostgreSQL is its major version, as Linode's engines offer them. */
export function majorOf(version: string): string {
  return version.split('.')[0] ?? version;
}

export function readInstance(instance: WireReader, key?: string): DatabaseObserved {
  const status = instance.raw('status') === undefined ? 'provisioning' : instance.string('status');
  const hosts = instance.raw('hosts') === undefined || instance.raw('hosts') === null ? undefined : instance.object('hosts');
  const primary = hosts?.raw('primary');
  const version = instance.raw('version') === undefined ? '' : instance.string('version');
  return {
    id: String(instance.number('id')),
    name: instance.string('label'),
    clientToken: keyFromLabel(instance.string('label'), key),
    serverId: '',
    type: 'postgresql',
    version: majorOf(version),
    // Linode sizes the disk by the type; cairn takes no storageGb for it (managed-databases.ts).
    storageGb: null,
    size: instance.string('type'),
    status: STATUS[status] ?? 'error',
    host: typeof primary === 'string' ? primary : null,
    port: instance.raw('port') === undefined ? null : instance.number('port'),
    engineVersion: version === '' ? null : version,
    ...(STATUS[status] === undefined ? { message: `Linode reports the database ${status}` } : {}),
  };
}

/** Where to reach the database and as whom, with the password Linode chose for its root user. */
export function readEndpoint(instance: WireReader, credentials: WireReader): DatabaseEndpoint {
  const observed = readInstance(instance);
  if (observed.host === null || observed.port === null) throw new Error(`linode: managed database ${observed.id} has no host yet (Linode assigns it once provisioning is done)`);
  return { host: observed.host, port: observed.port, username: credentials.string('username'), database: DEFAULT_DATABASE, vendorPassword: credentials.string('password') };
}

/** The major PostgreSQL versions among Linode's engines (`{ engine: "postgresql", version: "16" }`), with the engine id of each. */
export function postgresEngines(engines: readonly WireReader[]): Map<string, string> {
  const byMajor = new Map<string, string>();
  for (const engine of engines) {
    if (engine.string('engine') !== 'postgresql') continue;
    const major = majorOf(engine.string('version'));
    // The first listed for a major wins, unless a later one is that major exactly.
    if (!byMajor.has(major) || engine.string('version') === major) byMajor.set(major, engine.string('id'));
  }
  return byMajor;
}

/** Whether the type can hold a one-node PostgreSQL cluster (it has a PostgreSQL price for one node). */
export function offersOneNodePostgres(type: WireReader): boolean {
  const engines = type.raw('engines');
  if (typeof engines !== 'object' || engines === null) return false;
  const postgres = (engines as { postgresql?: unknown }).postgresql;
  return Array.isArray(postgres) && postgres.some((price) => (price as { quantity?: unknown } | null)?.quantity === 1);
}

/** Whether the region runs managed databases. */
export function regionRunsDatabases(region: WireReader): boolean {
  const capabilities = region.raw('capabilities');
  return Array.isArray(capabilities) && capabilities.includes('Managed Databases');
}
