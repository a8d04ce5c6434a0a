/**
 * @module Scaleway Managed Database for PostgreSQL (RDB API v1) as cairn's DatabaseRuntime: one
 * non-HA Database Instance per Database in a Scaleway region (fr-par, nl-ams, pl-waw), in the
 * Provider's project. Like servers, an instance carries its idempotency key as a tag
 * (key-tag.ts) and a create first looks for it (`ListInstances?tags=`), so a create whose answer
 * was lost is found, never made twice. Engine version and node type are checked against the
 * region's `database-engines` and `node-types` before anything is sent. Scaleway takes cairn's
 * password at create (user `cairn`, checked against Scaleway's password rule first) and
 * changes it through `UpdateUser`; a node type or volume change is an `UpgradeInstance`,
 * followed until the instance is `ready` again.
 *
 * Not built yet: on-demand backups and restores (Scaleway has them: CreateDatabaseBackup,
 * RestoreDatabaseBackup); they are refused, saying so, and Scaleway's own daily backups remain.
 */
import type { CallOptions, DatabaseDesired, DatabaseEndpoint, DatabaseObserved, DatabaseRuntime, ExternalRef, ManagedDatabaseDriver } from '../contract.js';
import { UnsupportedError, VendorRejectedError } from '../errors.js';
import { followAction } from '../kit/follow-action.js';
import { readAllPages } from '../kit/pagination.js';
import { ManagedDatabasesWithoutBackups } from '../kit/backups-refused.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { MANAGED_TAG, tagForKey } from './key-tag.js';
import { CAIRN_USER, DEFAULT_DATABASE, RDB_REGIONS, checkPassword, engineName, firstEndpoint, isReady, parseRdbId, readInstance, readNodeTypes, readPostgresVersions, volumeBytes } from './rdb-wire.js';

const id = encodeURIComponent;

/** Why cairn takes no backups of Scaleway's managed databases yet (said in every refusal). */
export const SCALEWAY_BACKUPS_NOT_BUILT =
  "cairn does not take or restore on-demand backups of Scaleway's managed databases yet (Scaleway keeps its own daily backups, restored in its console); " +
  'to delete one without a final backup, set the annotation cairn.dev/skip-final-backup: "true"';

const PAGE_SIZE = 100;

export class ScalewayManagedDatabases extends ManagedDatabasesWithoutBackups implements DatabaseRuntime {
  constructor(
    private readonly client: VendorHttpClient,
    private readonly projectId: string,
    private readonly pollMs: number,
  ) {
    super((id) => `scaleway: database instance ${id}: ${SCALEWAY_BACKUPS_NOT_BUILT}`);
  }

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<DatabaseObserved | null> {
    const where = ref.externalId ? parseRdbId(ref.externalId) : undefined;
    if (where) {
      const found = await this.get(where.region, where.id, `observe database instance ${ref.externalId ?? ''}`, options);
      if (found) return readInstance(found);
    }
    if (ref.key === '') return null;
    for (const region of RDB_REGIONS) {
      const found = await this.findByKey(region, ref.key, options);
      if (found) return found;
    }
    return null;
  }

  async create(key: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const managed = this.managedOf(desired);
    const region = this.regionOf(managed.region);
    const existing = await this.findByKey(region, key, options);
    if (existing) return existing;
    const doing = `create postgresql database instance "${desired.name}" in ${region}`;
    if (desired.type !== 'postgresql') throw new VendorRejectedError(`scaleway managed databases run PostgreSQL only, not ${desired.type}`, { field: 'type' });
    checkPassword(desired.password, doing);
    await this.checkOffer(region, managed.size, desired.version, doing, options);
    const body = {
      project_id: this.projectId,
      name: desired.name,
      engine: engineName(desired.version),
      user_name: CAIRN_USER,
      password: desired.password,
      node_type: managed.size,
      is_ha_cluster: false,
      tags: [tagForKey(key), MANAGED_TAG],
      ...(desired.storageGb !== null ? { volume_size: volumeBytes(desired.storageGb) } : {}),
    };
    const answer = await this.client.call({ method: 'POST', path: `/rdb/v1/regions/${region}/instances`, body, doing, signal: options.signal });
    return readInstance(WireReader.of(answer.body, `scaleway: ${doing}`));
  }

  async update(externalId: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const managed = this.managedOf(desired);
    const where = this.parsed(externalId);
    const doing = `upgrade database instance "${desired.name}" (${externalId}) to ${managed.size}`;
    let current = await this.settled(where, doing, options);
    if (current.version !== desired.version) {
      throw new UnsupportedError(
        `scaleway: database instance ${externalId} runs postgresql ${current.version}; cairn does not drive Scaleway's major version upgrades: set spec.version back to "${current.version}", or replace the database (a new one on ${desired.version}) and move the data`,
      );
    }
    if (managed.region !== where.region) {
      throw new UnsupportedError(`scaleway: database instance ${externalId} is in ${where.region}; Scaleway cannot move one to ${managed.region}: set spec.region back to "${where.region}", or replace the database`);
    }
    if (current.size !== managed.size) {
      await this.checkOffer(where.region, managed.size, undefined, doing, options);
      await this.upgrade(where, { node_type: managed.size }, doing, options);
      current = await this.settled(where, doing, options);
    }
    if (desired.storageGb !== null && current.storageGb !== desired.storageGb) {
      if (current.storageGb !== null && desired.storageGb < current.storageGb) {
        throw new VendorRejectedError(`scaleway: database instance ${externalId} has ${current.storageGb} GB; Scaleway grows a volume but never shrinks it`, { field: 'storageGb' });
      }
      await this.upgrade(where, { volume_size: volumeBytes(desired.storageGb) }, `${doing}: grow its volume to ${desired.storageGb} GB`, options);
      current = await this.settled(where, doing, options);
    }
    return current;
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    const where = this.parsed(externalId);
    await this.client.call({ method: 'DELETE', path: this.instancePath(where), doing: `delete database instance ${externalId}`, accept: [404], signal: options.signal });
  }

  async endpoint(externalId: string, options: CallOptions = {}): Promise<DatabaseEndpoint> {
    const where = this.parsed(externalId);
    const doing = `read the endpoint of database instance ${externalId}`;
    const found = firstEndpoint(await this.required(where, doing, options));
    if (!found) throw new Error(`scaleway: database instance ${externalId} has no endpoint yet`);
    return { host: found.host, port: found.port, username: CAIRN_USER, database: DEFAULT_DATABASE };
  }

  async setPassword(externalId: string, password: string, options: CallOptions = {}): Promise<void> {
    const where = this.parsed(externalId);
    const doing = `set the password of user ${CAIRN_USER} on database instance ${externalId}`;
    checkPassword(password, doing);
    await this.client.call({ method: 'PATCH', path: `${this.instancePath(where)}/users/${CAIRN_USER}`, body: { password }, doing, signal: options.signal });
  }

  private managedOf(desired: DatabaseDesired): NonNullable<DatabaseDesired['managed']> {
    if (desired.managed === undefined) throw new Error(`scaleway: database "${desired.name}" has no managed region and size`);
    return desired.managed;
  }

  private regionOf(region: string): string {
    if (!(RDB_REGIONS as readonly string[]).includes(region)) {
      throw new VendorRejectedError(`scaleway managed postgresql: region "${region}" is not a Scaleway database region; regions: ${RDB_REGIONS.join(', ')}`, { field: 'region' });
    }
    return region;
  }

  private parsed(externalId: string): { region: string; id: string } {
    const where = parseRdbId(externalId);
    if (!where) throw new Error(`scaleway: "${externalId}" is not a Scaleway database instance id (<region>/<uuid>)`);
    return where;
  }

  private instancePath(where: { region: string; id: string }): string {
    return `/rdb/v1/regions/${where.region}/instances/${id(where.id)}`;
  }

  private async upgrade(where: { region: string; id: string }, body: Record<string, unknown>, doing: string, options: CallOptions): Promise<void> {
    await this.client.call({ method: 'POST', path: `${this.instancePath(where)}/upgrade`, body, doing, signal: options.signal });
  }

  private async get(region: string, instanceId: string, doing: string, options: CallOptions): Promise<WireReader | null> {
    const answer = await this.client.call({ method: 'GET', path: this.instancePath({ region, id: instanceId }), doing, accept: [404], signal: options.signal });
    return answer.status === 404 ? null : WireReader.of(answer.body, `scaleway: ${doing}`);
  }

  private async required(where: { region: string; id: string }, doing: string, options: CallOptions): Promise<WireReader> {
    const found = await this.get(where.region, where.id, doing, options);
    if (!found) throw new Error(`scaleway: ${doing}: database instance ${where.region}/${where.id} no longer exists`);
    return found;
  }

  private async findByKey(region: string, key: string, options: CallOptions): Promise<DatabaseObserved | null> {
    const tag = tagForKey(key);
    const doing = `find database instance tagged ${tag} in ${region}`;
    const answer = await this.client.call({ method: 'GET', path: `/rdb/v1/regions/${region}/instances`, query: { tags: tag, project_id: this.projectId }, doing, signal: options.signal });
    const body = WireReader.of(answer.body, `scaleway: ${doing}`);
    const found = body.array('instances').find((instance) => instance.raw('tags') !== undefined && instance.strings('tags').includes(tag));
    return found ? readInstance(found) : null;
  }

  /** The instance once it is `ready` (not provisioning, configuring or backing up). */
  private async settled(where: { region: string; id: string }, doing: string, options: CallOptions): Promise<DatabaseObserved> {
    let instance = await this.required(where, doing, options);
    await followAction(
      async () => {
        instance = await this.required(where, doing, options);
        return { done: isReady(instance) };
      },
      { what: `scaleway: ${doing}: waiting for the instance to be ready`, intervalMs: this.pollMs, signal: options.signal },
    );
    return readInstance(instance);
  }

  private async list(region: string, resource: 'database-engines' | 'node-types', field: string, doing: string, options: CallOptions): Promise<WireReader[]> {
    return readAllPages(async (at) => {
      const page = Number(at ?? '1');
      const answer = await this.client.call({ method: 'GET', path: `/rdb/v1/regions/${region}/${resource}`, query: { page, page_size: PAGE_SIZE, ...(resource === 'node-types' ? { include_disabled_types: false } : {}) }, doing, signal: options.signal });
      const body = WireReader.of(answer.body, `scaleway: ${doing}`);
      const items = body.array(field);
      const total = body.numberOrNull('total_count');
      const seen = (page - 1) * PAGE_SIZE + items.length;
      return { items, next: items.length > 0 && total !== null && seen < total ? String(page + 1) : undefined };
    }, `scaleway: ${doing}`);
  }

  /** Refuses (naming the valid ones) a node type or version (when given) the region does not offer, before anything is sent. */
  private async checkOffer(region: string, size: string, version: string | undefined, doing: string, options: CallOptions): Promise<void> {
    const what = `scaleway managed postgresql in ${region}`;
    const sizes = readNodeTypes(await this.list(region, 'node-types', 'node_types', `${doing}: read the node types`, options));
    if (!sizes.includes(size)) throw new VendorRejectedError(`${what}: size "${size}" is not offered; sizes: ${sizes.join(', ')}`, { field: 'size' });
    if (version === undefined) return;
    const versions = readPostgresVersions(await this.list(region, 'database-engines', 'engines', `${doing}: read the engines`, options));
    if (!versions.includes(version)) throw new VendorRejectedError(`${what}: version "${version}" is not offered; versions: ${versions.join(', ')}`, { field: 'version' });
  }
}

/** Scaleway's managed database service as cairn's ManagedDatabaseDriver. */
export class ScalewayManagedDatabaseDriver implements ManagedDatabaseDriver {
  readonly vendor = 'scaleway';
  readonly databases: ScalewayManagedDatabases;

  constructor(client: VendorHttpClient, projectId: string, pollMs = 1000) {
    this.databases = new ScalewayManagedDatabases(client, projectId, pollMs);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
