/**
 * @module The sandbox vendor's snake_case answers turned into the driver contract's camelCase
 * shapes, and the contract's desired shapes turned into request bodies.
 */
import type {
  AppDesired, AppLogLine, AppObserved, BackupObserved, DatabaseDesired, DatabaseEndpoint, DatabaseObserved, Region,
  ServerMetrics, ServerObserved, Size, VendorAppStatus, VendorBackupStatus, VendorDatabaseStatus, VendorServerStatus,
} from '../contract.js';
import { WireReader } from '../kit/wire-reader.js';

const SERVER_STATUSES: readonly VendorServerStatus[] = ['provisioning', 'running', 'stopping', 'stopped', 'starting', 'rebooting', 'deleting', 'error'];
const DATABASE_STATUSES: readonly VendorDatabaseStatus[] = ['creating', 'available', 'backing_up', 'restoring', 'deleting', 'error'];
const APP_STATUSES: readonly VendorAppStatus[] = ['deploying', 'running', 'stopping', 'stopped', 'failed', 'deleting'];
const BACKUP_STATUSES: readonly VendorBackupStatus[] = ['pending', 'running', 'completed', 'failed'];
const LOG_STREAMS: readonly AppLogLine['stream'][] = ['stdout', 'stderr', 'system'];
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
    simulated: r.boolean('simulated'),
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

/** Where to reach a database, from the `connection` of its record (which never holds a password). */
export function readEndpoint(r: WireReader): DatabaseEndpoint {
  return {
    host: r.string('host'),
    port: r.number('port'),
    username: r.string('user'),
    database: r.string('database'),
  };
}

export function readBackup(r: WireReader): BackupObserved {
  return {
    id: r.string('id'),
    clientToken: r.string('client_token'),
    databaseId: r.string('database_id'),
    status: r.oneOf('status', BACKUP_STATUSES),
    sizeBytes: r.numberOrNull('size_bytes'),
    checksum: r.stringOrNull('checksum'),
    createdAt: r.string('created_at'),
    completedAt: r.stringOrNull('completed_at'),
    message: r.stringOrNull('message'),
  };
}

export function readLogLine(r: WireReader): AppLogLine {
  return { ts: r.string('ts'), stream: r.oneOf('stream', LOG_STREAMS), line: r.string('line') };
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
    // The sandbox builds nothing from git, so it knows no commit.
    commit: null,
  };
}

export function databaseCreateBody(key: string, desired: DatabaseDesired): Record<string, unknown> {
  return {
    name: desired.name,
    server_id: desired.placement.serverExternalId,
    type: desired.type,
    version: desired.version,
    storage_gb: desired.storageGb,
    password: desired.password,
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
