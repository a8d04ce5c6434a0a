/**
 * @module Linode's Managed Databases for PostgreSQL as cairn's DatabaseRuntime: one-node
 * clusters through `/v4/databases/postgresql/instances`. Linode's databases take no tags and
 * no client token, so the idempotency key rides in the label (database-label.ts) and a create
 * first looks through the account's databases for it: a create whose answer was lost is found,
 * never made twice. Region (with the `Managed Databases` capability), type (with a one-node
 * PostgreSQL price) and major version (among the engines) are checked before anything is sent.
 * A new type is an in-place resize (`put`, to a larger type only: Linode refuses smaller ones)
 * followed until the database is `active` again. The allow list is `0.0.0.0/0`: Linode's
 * default (`[]`) blocks every connection, and cairn's apps reach it from anywhere, so access
 * rests on the password and TLS (`ssl_connection`, Linode's default).
 *
 * What cairn does not do here is refused, saying why: Linode chooses the root password itself
 * (cairn takes it from `endpoint()`, so no rotation to a password of cairn's), a disk size of
 * its own (the type sets it), a version change, and backups (Linode's live under the database
 * and go with it, while cairn's must outlive it).
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
import { readAllPages } from '../kit/pagination.js';
import { ManagedDatabasesWithoutBackups } from '../kit/backups-refused.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { databaseLabel, labelCarriesKey } from './database-label.js';
import { offersOneNodePostgres, postgresEngines, readEndpoint, readInstance, regionRunsDatabases } from './database-wire.js';
import { nextPage } from './wire-format.js';

const id = encodeURIComponent;
const INSTANCES = '/databases/postgresql/instances';
/** Items per page cairn asks for (Linode allows 25 to 500). */
const PAGE_SIZE = 500;

/** Why a rotation of a Linode managed database's credentials fails. */
export const VENDOR_CHOOSES_PASSWORDS =
  "Linode chooses its managed databases' root password itself and takes none from cairn (its credentials reset makes another random one, not the one cairn generated); cairn keeps the one Linode chose (reset it in Cloud Manager and cairn takes up the new one)";

/**
 * Why cairn takes no backups of Linode's managed databases: cairn's backups outlive their
 * database (a final backup is taken before a delete), and Linode's do not.
 */
export const NO_LASTING_BACKUPS =
  "Linode keeps a managed database's snapshot backups under the database itself (every backup operation is under /databases/postgresql/instances/{instanceId}/backups, at most 3 snapshots), so they cannot be reached once it is deleted, and a final backup would go with it; cairn's backups must outlive their database, so cairn takes and restores none there (Linode's own daily backups restore in Cloud Manager); " +
  'to delete one without a final backup, set the annotation cairn.dev/skip-final-backup: "true"';

/** How long the offer (engines, types, regions) is kept: it changes rarely. */
const OFFER_TTL_MS = 10 * 60_000;

interface Offer {
  /** Major version → engine id (`16` → `postgresql/16`). */
  versions: Map<string, string>;
  sizes: string[];
  regions: string[];
}

export class LinodeManagedDatabases extends ManagedDatabasesWithoutBackups implements DatabaseRuntime {
  private offer: { at: number; body: Promise<Offer> } | undefined;

  constructor(
    private readonly client: VendorHttpClient,
    private readonly pollMs: number,
  ) {
    super((id) => `linode: managed database ${id}: ${NO_LASTING_BACKUPS}`);
  }

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<DatabaseObserved | null> {
    if (ref.externalId) {
      const found = await this.get(ref.externalId, `observe managed database ${ref.externalId}`, options);
      if (found) return readInstance(found, ref.key);
    }
    return ref.key === '' ? null : this.findByKey(ref.key, options);
  }

  async create(key: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const existing = await this.findByKey(key, options);
    if (existing) return existing;
    const managed = managedOf(desired);
    const doing = `create managed PostgreSQL "${desired.name}"`;
    if (desired.type !== 'postgresql') throw new VendorRejectedError(`linode: managed databases run PostgreSQL only here; ${desired.type} is not built`, { field: 'type' });
    if (desired.storageGb !== null) throw storageRefusal(desired.storageGb);
    const engine = await this.checkOffer(managed.region, managed.size, desired.version, doing, options);
    const body = {
      label: databaseLabel(desired.name, key), region: managed.region, type: managed.size, engine, cluster_size: 1, allow_list: ['0.0.0.0/0'],
    };
    const answer = await this.client.call({ method: 'POST', path: INSTANCES, body, doing, signal: options.signal });
    return readInstance(WireReader.of(answer.body, `linode: ${doing}`), key);
  }

  async update(externalId: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const managed = managedOf(desired);
    const doing = `resize managed database ${externalId} to ${managed.size}`;
    if (desired.storageGb !== null) throw storageRefusal(desired.storageGb);
    let current = await this.settled(externalId, doing, options);
    if (current.version !== desired.version) {
      throw new UnsupportedError(
        `linode: managed database ${externalId} runs PostgreSQL ${current.version}; cairn does not drive Linode's version upgrades: set spec.version back to "${current.version}", or replace the database (a new one on ${desired.version}) and move the data`,
      );
    }
    if (current.size === managed.size) return current;
    // The version is not checked: a database keeps running one Linode no longer offers for new ones.
    await this.checkOffer(undefined, managed.size, undefined, doing, options);
    await this.client.call({ method: 'PUT', path: `${INSTANCES}/${id(externalId)}`, body: { type: managed.size }, doing, signal: options.signal });
    current = await this.settled(externalId, doing, options);
    return current;
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    await this.client.call({ method: 'DELETE', path: `${INSTANCES}/${id(externalId)}`, doing: `delete managed database ${externalId}`, accept: [404], signal: options.signal });
  }

  async endpoint(externalId: string, options: CallOptions = {}): Promise<DatabaseEndpoint> {
    const doing = `read the connection of managed database ${externalId}`;
    const instance = await this.required(externalId, doing, options);
    const answer = await this.client.call({ method: 'GET', path: `${INSTANCES}/${id(externalId)}/credentials`, doing, signal: options.signal });
    return readEndpoint(instance, WireReader.of(answer.body, `linode: ${doing}`));
  }

  setPassword(externalId: string): Promise<void> {
    return Promise.reject(new UnsupportedError(`linode: managed database ${externalId}: ${VENDOR_CHOOSES_PASSWORDS}`));
  }

  private async get(externalId: string, doing: string, options: CallOptions): Promise<WireReader | null> {
    const answer = await this.client.call({ method: 'GET', path: `${INSTANCES}/${id(externalId)}`, doing, accept: [404], signal: options.signal });
    return answer.status === 404 ? null : WireReader.of(answer.body, `linode: ${doing}`);
  }

  private async required(externalId: string, doing: string, options: CallOptions): Promise<WireReader> {
    const instance = await this.get(externalId, doing, options);
    if (!instance) throw new Error(`linode: ${doing}: managed database ${externalId} no longer exists`);
    return instance;
  }

  private list(path: string, doing: string, options: CallOptions): Promise<WireReader[]> {
    return readAllPages(async (page) => {
      const answer = await this.client.call({ method: 'GET', path, query: { page: page ?? '1', page_size: PAGE_SIZE }, doing, signal: options.signal });
      const body = WireReader.of(answer.body, `linode: ${doing}`);
      return { items: body.array('data'), next: nextPage(body) };
    }, `linode: ${doing}`);
  }

  private async findByKey(key: string, options: CallOptions): Promise<DatabaseObserved | null> {
    const all = await this.list(INSTANCES, 'find a managed database by the key in its label', options);
    const found = all.find((instance) => labelCarriesKey(instance.string('label'), key));
    return found ? readInstance(found, key) : null;
  }

  /** The database once it is `active` (not provisioning or resizing). */
  private async settled(externalId: string, doing: string, options: CallOptions): Promise<DatabaseObserved> {
    let instance = await this.required(externalId, doing, options);
    await followAction(
      async () => {
        instance = await this.required(externalId, doing, options);
        return { done: instance.raw('status') === 'active' };
      },
      { what: `linode: ${doing}: waiting for the database to be active`, intervalMs: this.pollMs, signal: options.signal },
    );
    return readInstance(instance);
  }

  private offerOf(doing: string, options: CallOptions, fresh: boolean): Promise<Offer> {
    if (!fresh && this.offer && Date.now() - this.offer.at < OFFER_TTL_MS) return this.offer.body;
    const body = Promise.all([
      this.list('/databases/engines', `${doing}: list the database engines`, options),
      this.list('/databases/types', `${doing}: list the database types`, options),
      this.list('/regions', `${doing}: list the regions`, options),
    ]).then(([engines, types, regions]) => ({
      versions: postgresEngines(engines),
      sizes: types.filter(offersOneNodePostgres).map((t) => t.string('id')),
      regions: regions.filter(regionRunsDatabases).map((r) => r.string('id')),
    }));
    const entry = { at: Date.now(), body };
    this.offer = entry;
    body.catch(() => {
      if (this.offer === entry) this.offer = undefined;
    });
    return body;
  }

  /**
   * Refuses (naming the valid ones) a region (when given), type or version (when given) Linode
   * does not offer, before anything is sent; a miss reads the offer again once, in case it grew.
   * Gives the engine id of the version (`postgresql/16`).
   */
  private async checkOffer(region: string | undefined, size: string, version: string | undefined, doing: string, options: CallOptions): Promise<string> {
    let checked = offerProblem(await this.offerOf(doing, options, false), region, size, version);
    if (checked instanceof VendorRejectedError) checked = offerProblem(await this.offerOf(doing, options, true), region, size, version);
    if (checked instanceof VendorRejectedError) throw checked;
    return checked;
  }
}

function managedOf(desired: DatabaseDesired): NonNullable<DatabaseDesired['managed']> {
  if (desired.managed === undefined) throw new Error(`linode: database "${desired.name}" has no managed region and size`);
  return desired.managed;
}

function storageRefusal(storageGb: number): VendorRejectedError {
  return new VendorRejectedError(
    `linode managed postgresql: storageGb ${storageGb} cannot be set: Linode gives a managed database the disk of its type; leave storageGb out and choose a size with the disk you need (GET https://api.linode.com/v4/databases/types)`,
    { field: 'storageGb' },
  );
}

/** The engine id when the offer holds all that is asked; else the refusal. */
function offerProblem(offer: Offer, region: string | undefined, size: string, version: string | undefined): VendorRejectedError | string {
  const what = 'linode managed postgresql';
  if (region !== undefined && !offer.regions.includes(region)) return new VendorRejectedError(`${what}: region "${region}" does not run managed databases; regions: ${offer.regions.join(', ')}`, { field: 'region' });
  if (!offer.sizes.includes(size)) return new VendorRejectedError(`${what}: size "${size}" is not a one-node PostgreSQL type; sizes: ${offer.sizes.join(', ')}`, { field: 'size' });
  if (version === undefined) return '';
  const engine = offer.versions.get(version);
  if (engine === undefined) return new VendorRejectedError(`${what}: version "${version}" is not offered; versions: ${[...offer.versions.keys()].join(', ')}`, { field: 'version' });
  return engine;
}

/** Linode's managed PostgreSQL as cairn's ManagedDatabaseDriver. */
export class LinodeManagedDatabaseDriver implements ManagedDatabaseDriver {
  readonly choosesPasswords = true;
  readonly vendor = 'linode';
  readonly databases: LinodeManagedDatabases;

  constructor(client: VendorHttpClient, pollMs = 1000) {
    this.databases = new LinodeManagedDatabases(client, pollMs);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
