/**
 * @module The sandbox vendor's snake_case answers turned into the driver contract's camelCase
 * shapes, and the contract's desired shapes turned into request bodies.
 */
import type {
  AppDesired, AppObserved, DatabaseConnection, DatabaseDesired, DatabaseObserved, Region, ServerMetrics,
  ServerObserved, Size, VendorAppStatus, VendorDatabaseStatus, VendorServerStatus,
} from '../contract.js';
import { WireReader } from './wire-reader.js';

const SERVER_STATUSES: readonly VendorServerStatus[] = ['provisioning', 'running', 'stopping', 'stopped', 'starting', 'rebooting', 'deleting', 'error'];
const DATABASE_STATUSES: readonly VendorDatabaseStatus[] = ['creating', 'available', 'backing_up', 'restoring', 'deleting', 'error'];
const APP_STATUSES: readonly VendorAppStatus[] = ['deploying', 'running', 'stopping', 'stopped', 'failed', 'deleting'];
const DATABASE_TYPES = ['postgresql', 'mongodb'] as const;

export function readServer(r: WireReader): ServerObserved {
  return {
    id: r.string('id'),
    name: r.string('name'),
    clientToken: r.string('client_token'),
    region: r.string('region'),
    size: r.string('size'),
    image: r.string('image'),
    status: r.oneOf('status', SERVER_STATUSES),
    ipv4: r.stringOrNull('ipv4'),
    ipv6: r.stringOrNull('ipv6'),
  };
}

export function readRegion(r: WireReader): Region {
  return { slug: r.string('slug'), name: r.string('name'), available: r.boolean('available') };
}

export function readSize(r: WireReader): Size {
  return {
    slug: r.string('slug'),
    vcpus: r.number('vcpus'),
    memoryMb: r.number('memory_mb'),
    diskGb: r.number('disk_gb'),
    priceMonthly: r.number('price_monthly'),
    regions: r.strings('regions'),
  };
}

export function readMetrics(r: WireReader): ServerMetrics {
  return {
    cpuPercent: r.number('cpu_percent'),
    memoryPercent: r.number('memory_percent'),
    diskPercent: r.number('disk_percent'),
    sampledAt: r.string('sampled_at'),
    series: r.array('series').map((s) => ({
      ts: s.string('ts'),
      cpuPercent: s.number('cpu_percent'),
      memoryPercent: s.number('memory_percent'),
      diskPercent: s.number('disk_percent'),
    })),
  };
}

export function readDatabase(r: WireReader): DatabaseObserved {
  return {
    id: r.string('id'),
    name: r.string('name'),
    clientToken: r.string('client_token'),
    serverId: r.string('server_id'),
    type: r.oneOf('type', DATABASE_TYPES),
    version: r.string('version'),
    storageGb: r.numberOrNull('storage_gb'),
    status: r.oneOf('status', DATABASE_STATUSES),
    host: r.stringOrNull('host'),
    port: r.numberOrNull('port'),
    engineVersion: r.stringOrNull('engine_version'),
  };
}

export function readConnection(r: WireReader): DatabaseConnection {
  return {
    host: r.string('host'),
    port: r.number('port'),
    username: r.string('user'),
    password: r.string('password'),
    database: r.string('database'),
    uri: r.string('uri'),
  };
}

export function readApp(r: WireReader): AppObserved {
  return {
    id: r.string('id'),
    name: r.string('name'),
    clientToken: r.string('client_token'),
    serverId: r.string('server_id'),
    status: r.oneOf('status', APP_STATUSES),
    url: r.stringOrNull('url'),
    releaseDigest: r.stringOrNull('release_digest'),
    release: r.number('release'),
  };
}

export function databaseCreateBody(key: string, desired: DatabaseDesired): Record<string, unknown> {
  return {
    name: desired.name,
    server_id: desired.placement.serverExternalId,
    type: desired.type,
    version: desired.version,
    storage_gb: desired.storageGb,
    client_token: key,
  };
}

/** The deploy-relevant fields and run state of an app, as sent on create and update. */
export function appConfigBody(desired: AppDesired): Record<string, unknown> {
  return {
    source: desired.source,
    build: desired.build,
    command: desired.command,
    port: desired.port,
    env: desired.env,
    health_check_path: desired.healthCheckPath,
    state: desired.state,
  };
}
