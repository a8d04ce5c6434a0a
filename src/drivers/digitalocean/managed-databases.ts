/**
 * @module DigitalOcean Managed Databases (PostgreSQL and MongoDB) as cairn's DatabaseRuntime:
 * one-node clusters through `/v2/databases`. Like droplets, a cluster carries its idempotency
 * key as a tag (key-tag.ts) and a create first looks for it (`?tag_name=`), so a create whose
 * answer was lost is found, never made twice. Engine, region, size and version are checked
 * against `/v2/databases/options` before anything is sent. A size change is an in-place
 * resize followed until the cluster is `online` again.
 *
 * What DigitalOcean does not let cairn do is refused, saying why: it chooses the default user's
 * password itself (cairn takes it from `endpoint()` and cannot set one, so no rotation); it
 * takes daily backups itself and has no endpoint to take one on demand (so no backup, final
 * backup or restore through cairn); a new major version is its own upgrade endpoint's work.
 */
import type {
  CallOptions,
  DatabaseDesired,
  DatabaseEndpoint,
  DatabaseObserved,
  DatabaseRuntime,
  ExternalRef,
  ManagedDatabaseDriver,
} from '../contract.js';
import { UnsupportedError, VendorRejectedError } from '../errors.js';
import { followAction } from '../kit/follow-action.js';
import { ManagedDatabasesWithoutBackups } from '../kit/backups-refused.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { ENGINE_SLUG, isOnline, readCluster, readEndpoint, readEngineOffer, storageMib, type EngineOffer, type ManagedEngine } from './database-wire.js';
import { MANAGED_TAG, tagForKey } from './key-tag.js';

const id = encodeURIComponent;

/** Why cairn takes no backups of DigitalOcean's managed databases (said in every refusal). */
export const NO_ON_DEMAND_BACKUPS =
  'DigitalOcean takes daily backups of its managed databases itself (kept 7 days, restored by forking in its control panel) and has no endpoint to take one on demand, so cairn cannot take or restore backups of them; ' +
  'to delete one without a final backup, set the annotation cairn.dev/skip-final-backup: "true"';

/** Why a rotation of a DigitalOcean managed database's credentials fails. */
export const VENDOR_CHOOSES_PASSWORDS =
  "DigitalOcean chooses its managed databases' passwords itself and takes none from cairn; cairn keeps the one DigitalOcean chose (reset it in DigitalOcean's control panel and cairn takes up the new one)";

/** How long the options (engines' regions, versions, sizes) are kept: they change rarely. */
const OPTIONS_TTL_MS = 10 * 60_000;

export class DigitalOceanManagedDatabases extends ManagedDatabasesWithoutBackups implements DatabaseRuntime {
  private options: { at: number; body: Promise<WireReader> } | undefined;

  constructor(
    private readonly client: VendorHttpClient,
    private readonly pollMs: number,
  ) {
    super((id) => `digitalocean: database cluster ${id}: ${NO_ON_DEMAND_BACKUPS}`);
  }

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<DatabaseObserved | null> {
    if (ref.externalId) {
      const found = await this.get(ref.externalId, `observe database cluster ${ref.externalId}`, options);
      if (found) return readCluster(found);
    }
    return ref.key === '' ? null : this.findByKey(ref.key, options);
  }

  async create(key: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const existing = await this.findByKey(key, options);
    if (existing) return existing;
    const managed = this.managedOf(desired);
    const doing = `create ${desired.type} database cluster "${desired.name}"`;
    await this.checkOffer(desired.type, managed.region, managed.size, desired.version, doing, options);
    const body = {
      name: desired.name,
      engine: ENGINE_SLUG[desired.type],
      version: desired.version,
      region: managed.region,
      size: managed.size,
      num_nodes: 1,
      tags: [tagForKey(key), MANAGED_TAG],
      ...(desired.storageGb !== null ? { storage_size_mib: storageMib(desired.storageGb) } : {}),
    };
    const answer = await this.client.call({ method: 'POST', path: '/databases', body, doing, signal: options.signal });
    return readCluster(WireReader.of(answer.body, `digitalocean: ${doing}`).object('database'));
  }

  async update(externalId: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const managed = this.managedOf(desired);
    const doing = `resize database cluster "${desired.name}" (${externalId}) to ${managed.size}`;
    let current = await this.settled(externalId, doing, options);
    if (current.version !== desired.version) {
      throw new UnsupportedError(
        `digitalocean: database cluster ${externalId} runs ${desired.type} ${current.version}; DigitalOcean changes a managed database's version only through its own upgrade endpoint (major upgrades of PostgreSQL), which cairn does not drive: ` +
          `set spec.version back to "${current.version}", or replace the database (a new one on ${desired.version}) and move the data`,
      );
    }
    const storageChanges = desired.storageGb !== null && current.storageGb !== desired.storageGb;
    if (current.size === managed.size && !storageChanges) return current;
    // The version is not checked: a cluster keeps running one DigitalOcean no longer offers for new clusters.
    await this.checkOffer(desired.type, await this.regionOf(externalId, doing, options), managed.size, undefined, doing, options);
    const body = { size: managed.size, num_nodes: 1, ...(desired.storageGb !== null ? { storage_size_mib: storageMib(desired.storageGb) } : {}) };
    await this.client.call({ method: 'PUT', path: `/databases/${id(externalId)}/resize`, body, doing, signal: options.signal });
    current = await this.settled(externalId, doing, options);
    return current;
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    await this.client.call({ method: 'DELETE', path: `/databases/${id(externalId)}`, doing: `delete database cluster ${externalId}`, accept: [404], signal: options.signal });
  }

  async endpoint(externalId: string, options: CallOptions = {}): Promise<DatabaseEndpoint> {
    const doing = `read the connection of database cluster ${externalId}`;
    return readEndpoint(await this.required(externalId, doing, options));
  }

  setPassword(externalId: string): Promise<void> {
    return Promise.reject(new UnsupportedError(`digitalocean: database cluster ${externalId}: ${VENDOR_CHOOSES_PASSWORDS}`));
  }

  private managedOf(desired: DatabaseDesired): NonNullable<DatabaseDesired['managed']> {
    if (desired.managed === undefined) throw new Error(`digitalocean: database "${desired.name}" has no managed region and size`);
    return desired.managed;
  }

  private async get(externalId: string, doing: string, options: CallOptions): Promise<WireReader | null> {
    const answer = await this.client.call({ method: 'GET', path: `/databases/${id(externalId)}`, doing, accept: [404], signal: options.signal });
    return answer.status === 404 ? null : WireReader.of(answer.body, `digitalocean: ${doing}`).object('database');
  }

  private async required(externalId: string, doing: string, options: CallOptions): Promise<WireReader> {
    const cluster = await this.get(externalId, doing, options);
    if (!cluster) throw new Error(`digitalocean: ${doing}: database cluster ${externalId} no longer exists`);
    return cluster;
  }

  private async regionOf(externalId: string, doing: string, options: CallOptions): Promise<string> {
    return (await this.required(externalId, doing, options)).string('region');
  }

  private async findByKey(key: string, options: CallOptions): Promise<DatabaseObserved | null> {
    const tag = tagForKey(key);
    const doing = `find database cluster tagged ${tag}`;
    const answer = await this.client.call({ method: 'GET', path: '/databases', query: { tag_name: tag }, doing, signal: options.signal });
    const body = WireReader.of(answer.body, `digitalocean: ${doing}`);
    // An empty list may come as `null` or without the key: both mean no cluster has the tag.
    const [first] = body.raw('databases') === null || body.raw('databases') === undefined ? [] : body.array('databases');
    return first ? readCluster(first) : null;
  }

  /** The cluster once it is `online` (not creating, resizing or moving). */
  private async settled(externalId: string, doing: string, options: CallOptions): Promise<DatabaseObserved> {
    let cluster = await this.required(externalId, doing, options);
    await followAction(
      async () => {
        cluster = await this.required(externalId, doing, options);
        return { done: isOnline(cluster) };
      },
      { what: `digitalocean: ${doing}: waiting for the cluster to be online`, intervalMs: this.pollMs, signal: options.signal },
    );
    return readCluster(cluster);
  }

  private optionsBody(doing: string, options: CallOptions, fresh: boolean): Promise<WireReader> {
    if (!fresh && this.options && Date.now() - this.options.at < OPTIONS_TTL_MS) return this.options.body;
    const body = this.client
      .call({ method: 'GET', path: '/databases/options', doing: `${doing}: read the engines' options`, signal: options.signal })
      .then((answer) => WireReader.of(answer.body, `digitalocean: ${doing}`).object('options'));
    const entry = { at: Date.now(), body };
    this.options = entry;
    body.catch(() => {
      if (this.options === entry) this.options = undefined;
    });
    return body;
  }

  /**
   * Refuses (naming the valid ones) an engine, region, size or version (when given) DigitalOcean
   * does not offer, before anything is sent; a miss reads the options again once, in case they grew.
   */
  private async checkOffer(engine: ManagedEngine, region: string, size: string, version: string | undefined, doing: string, options: CallOptions): Promise<void> {
    let problem = offerProblem(readEngineOffer(await this.optionsBody(doing, options, false), engine), engine, region, size, version);
    if (problem) problem = offerProblem(readEngineOffer(await this.optionsBody(doing, options, true), engine), engine, region, size, version);
    if (problem) throw problem;
  }
}

function offerProblem(offer: EngineOffer | undefined, engine: ManagedEngine, region: string, size: string, version: string | undefined): VendorRejectedError | undefined {
  const what = `digitalocean managed ${engine}`;
  if (offer === undefined) return new VendorRejectedError(`${what} is not offered by DigitalOcean at the moment`, { field: 'type' });
  if (!offer.regions.includes(region)) return new VendorRejectedError(`${what}: region "${region}" is not offered; regions: ${offer.regions.join(', ')}`, { field: 'region' });
  if (!offer.sizes.includes(size)) return new VendorRejectedError(`${what}: size "${size}" is not offered for a one-node cluster; sizes: ${offer.sizes.join(', ')}`, { field: 'size' });
  if (version !== undefined && !offer.versions.includes(version)) return new VendorRejectedError(`${what}: version "${version}" is not offered; versions: ${offer.versions.join(', ')}`, { field: 'version' });
  return undefined;
}

/** DigitalOcean's managed database service as cairn's ManagedDatabaseDriver. */
export class DigitalOceanManagedDatabaseDriver implements ManagedDatabaseDriver {
  readonly choosesPasswords = true;
  readonly vendor = 'digitalocean';
  readonly databases: DigitalOceanManagedDatabases;

  constructor(client: VendorHttpClient, pollMs = 1000) {
    this.databases = new DigitalOceanManagedDatabases(client, pollMs);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
