/**
 * @module Exoscale's DBaaS PostgreSQL services read into cairn's driver types: the service name
 * cairn derives from its idempotency key (the name is the service's id at Exoscale), cairn's id
 * of a service (`<name>@<zone>`), a service's state, plan, disk, version and connection URI, and
 * the offer of `list-dbaas-service-types` for `pg` (versions and plans with their zones).
 */
import { createHash } from 'node:crypto';
import type { DatabaseEndpoint, DatabaseObserved, VendorDatabaseStatus } from '../contract.js';
import type { WireReader } from '../kit/wire-reader.js';

const GIB = 1024 ** 3;

/**
 * The service name for cairn's key: `cairn-` and 24 hex digits of the key's SHA-256, within
 * Exoscale's name rules (lowercase letters, digits and dashes, a letter first, at most 63), the
 * same for the same key, so a create whose answer was lost is found by name.
 */
export function serviceNameFor(key: string): string {
  return `cairn-${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
}

/** cairn's id of a service: its name and its zone. */
export function serviceIdOf(name: string, zone: string): string {
  return `${name}@${zone}`;
}

/** The name and zone of cairn's id, or undefined when it is not one. */
export function parseServiceId(externalId: string): { name: string; zone: string } | undefined {
  const at = externalId.lastIndexOf('@');
  if (at <= 0) return undefined;
  const name = externalId.slice(0, at);
  const zone = externalId.slice(at + 1);
  return /^[a-z][a-z0-9-]{0,62}$/.test(name) && /^[a-z]{2}-[a-z]{3}-\d+$/.test(zone) ? { name, zone } : undefined;
}

/**
 * A service's state as cairn's: `rebuilding` is a service being made (or remade); `rebalancing`
 * (a plan change moving data) still takes connections; `poweroff` is a service cairn did not
 * expect stopped, reported as an error saying so.
 */
const STATUS: Readonly<Record<string, VendorDatabaseStatus>> = { rebuilding: 'creating', running: 'available', rebalancing: 'available' };

/** The `pg` offer of `list-dbaas-service-types`. */
export interface PgOffer {
  versions: string[];
  plans: Array<{ name: string; zones: string[] | null; diskGb: number | null }>;
}

export function readPgOffer(types: WireReader): PgOffer | undefined {
  const pg = types.array('dbaas-service-types').find((t) => t.raw('name') === 'pg');
  if (!pg) return undefined;
  const plans = pg.raw('plans') === undefined ? [] : pg.array('plans');
  return {
    versions: pg.raw('available-versions') === undefined ? [] : pg.strings('available-versions'),
    plans: plans
      .filter((p) => p.raw('authorized') !== false)
      .map((p) => {
        const disk = p.numberOrNull('disk-space');
        return { name: p.string('name'), zones: p.raw('zones') === undefined ? null : p.strings('zones'), diskGb: disk === null ? null : Math.round(disk / GIB) };
      }),
  };
}

/** The service's connection URI (`postgres://user:password@host:port/db?sslmode=require`), once it has one. */
function uriOf(service: WireReader): URL | undefined {
  const raw = service.raw('uri');
  if (typeof raw !== 'string' || raw === '') return undefined;
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

export function readService(service: WireReader, zone: string, key: string): DatabaseObserved {
  const name = service.string('name');
  const own = service.raw('zone');
  const where = typeof own === 'string' && own !== '' ? own : zone;
  const state = service.raw('state') === undefined ? 'rebuilding' : service.string('state');
  const uri = uriOf(service);
  const disk = service.numberOrNull('disk-size');
  const version = service.raw('version') === undefined ? '' : service.string('version');
  return {
    id: serviceIdOf(name, where),
    name,
    clientToken: key,
    serverId: '',
    type: 'postgresql',
    version: version.split('.')[0] ?? '',
    storageGb: disk === null || disk <= 0 ? null : Math.round(disk / GIB),
    size: service.string('plan'),
    status: STATUS[state] ?? 'error',
    host: uri ? uri.hostname : null,
    port: uri && uri.port !== '' ? Number(uri.port) : null,
    engineVersion: version === '' ? null : version,
    ...(STATUS[state] === undefined ? { message: `Exoscale reports the service ${state}` } : {}),
  };
}

/** Whether the service is `running` (done being made or moved to a new plan). */
export function isRunning(service: WireReader): boolean {
  return service.raw('state') === 'running';
}

/** Where to reach the service and as whom (the admin user cairn created it with, and cairn's password). */
export function readServiceEndpoint(service: WireReader, externalId: string): DatabaseEndpoint {
  const uri = uriOf(service);
  if (!uri || uri.hostname === '') throw new Error(`exoscale: database service ${externalId} has no connection URI yet`);
  return {
    host: uri.hostname,
    port: uri.port === '' ? 5432 : Number(uri.port),
    username: decodeURIComponent(uri.username),
    database: decodeURIComponent(uri.pathname.replace(/^\//, '')) || 'defaultdb',
  };
}

/** The admin user's name: the service's `primary` user, else the URI's. */
export function adminUserOf(service: WireReader, externalId: string): string {
  const users = service.raw('users') === undefined ? [] : service.array('users');
  const primary = users.find((u) => u.raw('type') === 'primary');
  if (primary) return primary.string('username');
  return readServiceEndpoint(service, externalId).username;
}
