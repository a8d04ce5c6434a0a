/**
 * @module Azure Database for PostgreSQL flexible server as cairn's DatabaseRuntime, through
 * `@azure/arm-postgresql-flexible`. A Database's `managed.region` is an Azure location, its
 * `managed.size` a compute SKU (`Standard_B1ms`; its tier, Burstable / GeneralPurpose /
 * MemoryOptimized, follows from the family). The server lives in the Provider's resource group,
 * named from the subscription and cairn's key (server names are DNS names, unique across Azure,
 * so the key alone could collide with someone else's): ARM's PUT of the same name answers with
 * the same server, and a create whose answer was lost finds it again by a GET of that name (it
 * carries the key in its `cairn-key` tag too). The administrator is `cairn` with cairn's password;
 * setPassword is a PATCH of `administratorLoginPassword`; delete is ARM's DELETE, followed to
 * its end. The create's long-running operation is not waited for: its first answer says the
 * server is provisioning, and observe follows it (Azure-AsyncOperation is what the SDK polls).
 *
 * Backups are refused, saying why: a flexible server's on-demand backups
 * (`flexibleServers/{name}/backups/{backup}`) live inside the server and are deleted with it,
 * so a "final backup" taken before a delete would go with the server; and Azure restores only
 * into a new server (createMode PointInTimeRestore), never in place.
 */
import { createHash } from 'node:crypto';
import type { Server } from '@azure/arm-postgresql-flexible';
import type { CallOptions, DatabaseDesired, DatabaseEndpoint, DatabaseObserved, DatabaseRuntime, ExternalRef, VendorDatabaseStatus } from '../contract.js';
import { UnsupportedError, VendorRejectedError } from '../errors.js';
import { ManagedDatabasesWithoutBackups } from '../kit/backups-refused.js';
import { KEY_LABEL, ownershipLabels } from '../kit/ownership-labels.js';
import { azureCall, isNotFound } from './azure-errors.js';
import type { AzurePostgresClient } from './postgres-client.js';
import { nameFromId } from './resource-names.js';
import { NAME_TAG } from './wire-format.js';

export const SERVER_TYPE = 'Microsoft.DBforPostgreSQL/flexibleServers';
/** The administrator cairn names (Azure forbids `postgres`, `azure_superuser`, `admin`, ...). */
export const ADMIN_LOGIN = 'cairn';
/** PostgreSQL major versions API 2025-08-01 creates. */
export const POSTGRES_VERSIONS = ['11', '12', '13', '14', '15', '16', '17', '18'] as const;
/** Premium SSD sizes a flexible server's storage can have (GiB). */
export const STORAGE_SIZES_GB = [32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32767] as const;

/** Why cairn takes no backups of a flexible server (said in every refusal). */
export const NO_LASTING_BACKUPS =
  "Azure's on-demand backups of a flexible server live inside the server and are deleted with it (they cannot outlive it as a final backup), and Azure restores only into a new server (createMode PointInTimeRestore), not in place, so cairn does not take or restore backups of it; " +
  'Azure takes its own daily backups (7 days by default); to delete one without a final backup, set the annotation cairn.dev/skip-final-backup: "true"';

/** The server's name for a key: `cairn-pg-` and a hash of the subscription and key (3 to 63 lowercase letters, digits and hyphens). */
export function serverNameForKey(subscriptionId: string, key: string): string {
  return `cairn-pg-${createHash('sha256').update(`${subscriptionId}\n${key}`).digest('hex').slice(0, 24)}`;
}

/** The tier a compute SKU belongs to, from its family (B burstable, E memory-optimized, D general purpose); undefined for one that is none of them. */
export function tierOfSize(size: string): 'Burstable' | 'GeneralPurpose' | 'MemoryOptimized' | undefined {
  const family = /^Standard_([A-Z])\d/.exec(size)?.[1];
  return family === 'B' ? 'Burstable' : family === 'D' ? 'GeneralPurpose' : family === 'E' ? 'MemoryOptimized' : undefined;
}

/** A flexible server's `state` as cairn's status. */
export function readServerState(state: string | undefined): VendorDatabaseStatus {
  switch (state) {
    case 'Ready':
    case 'Updating':
    case 'Restarting':
      return 'available';
    case 'Dropping':
      return 'deleting';
    case 'Disabled':
    case 'Inaccessible':
      return 'error';
    default:
      return 'creating'; // Provisioning, Starting, Stopping, Stopped: not yet serving
  }
}

export function readServer(server: Server): DatabaseObserved {
  const status = readServerState(server.state);
  const host = status === 'available' ? server.fullyQualifiedDomainName ?? null : null;
  return {
    id: server.id ?? '',
    name: server.tags?.[NAME_TAG] ?? server.name ?? '',
    clientToken: server.tags?.[KEY_LABEL] ?? '',
    serverId: '',
    type: 'postgresql',
    version: server.version ?? '',
    storageGb: server.storage?.storageSizeGB ?? null,
    size: server.sku?.name ?? '',
    status,
    host,
    port: host === null ? null : 5432,
    engineVersion: !server.minorVersion ? null : server.minorVersion.includes('.') ? server.minorVersion : `${server.version ?? ''}.${server.minorVersion}`,
    ...(status === 'error' ? { message: `Azure reports the server ${server.state ?? ''}` } : {}),
  };
}

export class AzurePostgres extends ManagedDatabasesWithoutBackups implements DatabaseRuntime {
  private readonly resourceGroup: string;

  constructor(
    private readonly client: AzurePostgresClient,
    private readonly pollMs: number,
  ) {
    super((id) => `azure: flexible server ${id}: ${NO_LASTING_BACKUPS}`);
    this.resourceGroup = client.credentials.resourceGroup;
  }

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<DatabaseObserved | null> {
    const byId = ref.externalId ? nameFromId(ref.externalId, this.resourceGroup, SERVER_TYPE) : undefined;
    if (byId !== undefined) return this.get(byId, `observe flexible server ${byId}`, options);
    if (ref.key === '') return null;
    const name = this.nameFor(ref.key);
    return this.get(name, `find flexible server ${name} (key ${ref.key})`, options);
  }

  async create(key: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const parameters = this.serverFor(key, desired);
    const name = this.nameFor(key);
    const doing = `create flexible server ${name} ("${desired.name}") in ${parameters.location}`;
    const existing = await this.get(name, doing, options);
    if (existing) return existing;
    // PUT is idempotent by name; its first answer is enough (the server is Provisioning), observe follows it.
    const poller = await azureCall(`azure: ${doing}`, () => this.client.flexible.servers.beginCreateOrUpdate(this.resourceGroup, name, parameters, { abortSignal: options.signal, updateIntervalInMs: this.pollMs }));
    const first = poller.getOperationState().result;
    if (first?.id) return readServer(first);
    return (await this.get(name, doing, options)) ?? readServer({ ...parameters, name, state: 'Provisioning' });
  }

  async update(externalId: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const name = this.nameOf(externalId);
    const current = await this.get(name, `observe flexible server ${name}`, options);
    if (!current) throw new Error(`azure: flexible server ${name} no longer exists`);
    if (current.version !== desired.version || current.size !== desired.managed?.size || (desired.storageGb !== null && desired.storageGb !== current.storageGb)) {
      throw new UnsupportedError(
        `azure: flexible server ${name} runs PostgreSQL ${current.version} on ${current.size ?? '?'} with ${current.storageGb ?? '?'} GB; cairn does not change a flexible server's version, compute or storage yet: set them back, or replace the database`,
      );
    }
    return current;
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    const name = this.nameOf(externalId);
    await azureCall(`azure: delete flexible server ${name}`, async () => {
      try {
        await this.client.flexible.servers.beginDeleteAndWait(this.resourceGroup, name, { abortSignal: options.signal, updateIntervalInMs: this.pollMs });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    });
  }

  async endpoint(externalId: string, options: CallOptions = {}): Promise<DatabaseEndpoint> {
    const name = this.nameOf(externalId);
    const found = await this.get(name, `read the address of flexible server ${name}`, options);
    if (!found?.host || found.port === null) throw new Error(`azure: flexible server ${name} has no address yet (${found?.status ?? 'gone'})`);
    return { host: found.host, port: found.port, username: ADMIN_LOGIN, database: 'postgres' };
  }

  async setPassword(externalId: string, password: string, options: CallOptions = {}): Promise<void> {
    const name = this.nameOf(externalId);
    await azureCall(`azure: set the password of ${ADMIN_LOGIN} on flexible server ${name}`, () =>
      this.client.flexible.servers.beginUpdateAndWait(this.resourceGroup, name, { administratorLoginPassword: password }, { abortSignal: options.signal, updateIntervalInMs: this.pollMs }));
  }

  /** The server's PUT body, refused before sending when Azure could not make it (engine, size's tier, version, storage). */
  private serverFor(key: string, desired: DatabaseDesired): Server {
    if (desired.type !== 'postgresql') throw new VendorRejectedError(`azure managed ${desired.type}: Azure Database for PostgreSQL flexible server runs postgresql only`, { field: 'type' });
    const managed = desired.managed;
    if (!managed) throw new Error(`azure: database "${desired.name}" has no managed region and size`);
    const tier = tierOfSize(managed.size);
    if (tier === undefined) {
      throw new VendorRejectedError(`azure managed postgresql: size "${managed.size}" is not a flexible server compute size (Standard_B… burstable, Standard_D… general purpose, Standard_E… memory optimized, e.g. Standard_B1ms)`, { field: 'size' });
    }
    if (!(POSTGRES_VERSIONS as readonly string[]).includes(desired.version)) {
      throw new VendorRejectedError(`azure managed postgresql: version "${desired.version}" is not one Azure creates; versions: ${POSTGRES_VERSIONS.join(', ')}`, { field: 'version' });
    }
    const storage = desired.storageGb ?? STORAGE_SIZES_GB[0];
    if (!(STORAGE_SIZES_GB as readonly number[]).includes(storage)) {
      throw new VendorRejectedError(`azure managed postgresql: storage ${storage} GB is not a flexible server size; sizes: ${STORAGE_SIZES_GB.join(', ')} GB`, { field: 'storageGb' });
    }
    return {
      location: managed.region,
      tags: { ...ownershipLabels(key), [NAME_TAG]: desired.name },
      sku: { name: managed.size, tier },
      administratorLogin: ADMIN_LOGIN,
      administratorLoginPassword: desired.password,
      version: desired.version,
      storage: { storageSizeGB: storage },
      createMode: 'Create',
    };
  }

  private nameFor(key: string): string {
    return serverNameForKey(this.client.credentials.subscriptionId, key);
  }

  private nameOf(externalId: string): string {
    const name = nameFromId(externalId, this.resourceGroup, SERVER_TYPE);
    if (name === undefined) throw new VendorRejectedError(`azure: "${externalId}" is not the id of a flexible server in resource group ${this.resourceGroup}`);
    return name;
  }

  private async get(name: string, doing: string, options: CallOptions): Promise<DatabaseObserved | null> {
    const server = await azureCall(`azure: ${doing}`, async () => {
      try {
        return await this.client.flexible.servers.get(this.resourceGroup, name, { abortSignal: options.signal });
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    });
    return server ? readServer(server) : null;
  }
}
