/**
 * @module IONOS DBaaS PostgreSQL (https://api.ionos.com/databases/postgresql) as cairn's
 * DatabaseRuntime: clusters of one instance, in the location of `managed.region`, connected to
 * cairn's data center there (datacenters.ts, the same `cairn-<location>` the servers use) and
 * its private LAN `cairn-private` (IONOS's DBaaS joins only private LANs) at an address of 192.168.240.0/24 (from .10 up, the first no other cluster
 * on that LAN holds). IONOS takes no tags, so the idempotency key travels in the display name
 * (`<name> [cairn-key=<key>]`), and a create first looks for it (`filter.name`, which matches
 * part of the name regardless of case, then the exact name): a create whose answer was lost is
 * found, never made twice. Region, size, storage, version and password are checked before
 * anything is sent. The user is `cairn`, with cairn's password. A size or storage change, and a
 * version upgrade IONOS offers for the cluster, is a `clustersPatch` followed until AVAILABLE.
 *
 * What IONOS does not let cairn do is refused, saying why: the API sets a password only at
 * create (no rotation); it backs up every cluster continuously itself and has no on-demand
 * backup (so no backup, final backup or restore through cairn).
 */
import type {
  BackupObserved,
  CallOptions,
  DatabaseDesired,
  DatabaseEndpoint,
  DatabaseObserved,
  DatabaseRuntime,
  ExternalRef,
} from '../contract.js';
import { UnsupportedError, VendorRejectedError } from '../errors.js';
import { followAction } from '../kit/follow-action.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { databaseShape, storageMb } from './database-shapes.js';
import type { IonosDatacenters } from './datacenters.js';
import { clusterState, POSTGRES_PORT, readPostgresCluster } from './postgres-wire.js';
import { readServerName, serverNameFor } from './server-name.js';
import { KEY_LABEL } from '../kit/ownership-labels.js';

const id = encodeURIComponent;

/** The locations IONOS's DBaaS PostgreSQL runs in (the document's `Location` list). */
export const POSTGRES_LOCATIONS = ['de/fra', 'de/txl', 'gb/lhr', 'es/vit', 'us/ewr', 'us/las'] as const;
/** The database user cairn creates (IONOS reserves "postgres", "admin", "standby"). */
export const POSTGRES_USER = 'cairn';
export const POSTGRES_DATABASE = 'postgres';
/** The private network cairn puts its clusters' addresses in; IONOS reserves 10.233.0.0/18, 10.233.64.0/18 and 10.233.114.0/24. */
const SUBNET = '192.168.240';
const FIRST_HOST = 10;
const LAST_HOST = 254;
/** IONOS's `DBUser.password` minLength. */
const MIN_PASSWORD = 10;

/** Why cairn takes no backups of IONOS's managed PostgreSQL (said in every refusal). */
export const NO_ON_DEMAND_BACKUPS =
  'IONOS backs up every PostgreSQL cluster continuously itself (base backups and WAL, restorable to any moment in its retention) and has no endpoint to take one on demand, so cairn cannot take or restore backups of it (restore IONOS\'s own in its DCD or with ionosctl); ' +
  'to delete one without a final backup, set the annotation cairn.dev/skip-final-backup: "true"';

/** Why a rotation of an IONOS PostgreSQL password fails. */
export const NO_PASSWORD_CHANGE =
  "IONOS's DBaaS PostgreSQL API sets the user's password only when the cluster is created (a cluster's patch has no credentials), so cairn cannot change it; the cluster keeps the password cairn gave it";

export class IonosPostgresClusters implements DatabaseRuntime {
  constructor(
    private readonly client: VendorHttpClient,
    private readonly datacenters: IonosDatacenters,
    private readonly pollMs: number,
  ) {}

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<DatabaseObserved | null> {
    if (ref.externalId) {
      const found = await this.get(ref.externalId, `observe PostgreSQL cluster ${ref.externalId}`, options);
      if (found) return readPostgresCluster(found);
    }
    return ref.key === '' ? null : this.findByKey(ref.key, options);
  }

  async create(key: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const existing = await this.findByKey(key, options);
    if (existing) return existing;
    const managed = managedOf(desired);
    if (desired.type !== 'postgresql') throw new VendorRejectedError(`ionos managed ${desired.type} is not built yet; PostgreSQL is`, { field: 'type' });
    if (!(POSTGRES_LOCATIONS as readonly string[]).includes(managed.region)) {
      throw new VendorRejectedError(`ionos managed postgresql: region "${managed.region}" is not offered; regions: ${POSTGRES_LOCATIONS.join(', ')}`, { field: 'region' });
    }
    const shape = databaseShape(managed.size);
    const storageSize = storageMb(desired.storageGb);
    if (desired.password.length < MIN_PASSWORD) throw new VendorRejectedError(`ionos managed postgresql: the password must have at least ${MIN_PASSWORD} characters`, { field: 'password' });
    const doing = `create PostgreSQL cluster "${desired.name}"`;
    const versions = await this.versions(`${doing}: list PostgreSQL versions`, '/clusters/postgresversions', options);
    if (!versions.includes(desired.version)) {
      throw new VendorRejectedError(`ionos managed postgresql: version "${desired.version}" is not offered; versions: ${versions.join(', ')}`, { field: 'version' });
    }
    const { datacenter, lan } = await this.datacenters.ensure(managed.region, options, 'private');
    const cidr = await this.freeAddress(datacenter.id, String(lan), doing, options);
    const body = {
      properties: {
        displayName: serverNameFor(desired.name, key),
        postgresVersion: desired.version,
        instances: 1,
        cores: shape.cores,
        ram: shape.ramMb,
        storageSize,
        storageType: 'SSD Standard',
        location: managed.region,
        connections: [{ datacenterId: datacenter.id, lanId: String(lan), cidr }],
        credentials: { username: POSTGRES_USER, password: desired.password },
        synchronizationMode: 'ASYNCHRONOUS',
      },
    };
    const answer = await this.client.call({ method: 'POST', path: '/clusters', body, doing, signal: options.signal });
    return readPostgresCluster(WireReader.of(answer.body, `ionos: ${doing}`));
  }

  async update(externalId: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const managed = managedOf(desired);
    const doing = `change PostgreSQL cluster "${desired.name}" (${externalId})`;
    const shape = databaseShape(managed.size);
    const current = await this.settled(externalId, doing, options);
    const patch: Record<string, unknown> = {};
    if (current.size !== shape.slug) Object.assign(patch, { cores: shape.cores, ram: shape.ramMb });
    if (desired.storageGb !== null && current.storageGb !== desired.storageGb) {
      if (current.storageGb !== null && desired.storageGb < current.storageGb) {
        throw new VendorRejectedError(`ionos: PostgreSQL cluster ${externalId} has ${current.storageGb} GB; IONOS grows a cluster's storage but cannot shrink it`, { field: 'storageGb' });
      }
      patch['storageSize'] = storageMb(desired.storageGb);
    }
    if (current.version !== desired.version) {
      const upgrades = await this.versions(`${doing}: list the versions it can move to`, `/clusters/${id(externalId)}/postgresversions`, options);
      if (!upgrades.includes(desired.version)) {
        throw new UnsupportedError(
          `ionos: PostgreSQL cluster ${externalId} runs ${current.version} and IONOS cannot move it to ${desired.version} (it offers ${upgrades.length === 0 ? 'no other version' : upgrades.join(', ')}): set spec.version back to "${current.version}", or to one of those`,
        );
      }
      patch['postgresVersion'] = desired.version;
    }
    if (Object.keys(patch).length === 0) return current;
    await this.client.call({ method: 'PATCH', path: `/clusters/${id(externalId)}`, body: { properties: patch }, doing, signal: options.signal });
    return this.settled(externalId, doing, options);
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    await this.client.call({ method: 'DELETE', path: `/clusters/${id(externalId)}`, doing: `delete PostgreSQL cluster ${externalId}`, accept: [404], signal: options.signal });
  }

  async endpoint(externalId: string, options: CallOptions = {}): Promise<DatabaseEndpoint> {
    const doing = `read the connection of PostgreSQL cluster ${externalId}`;
    const cluster = await this.get(externalId, doing, options);
    if (!cluster) throw new Error(`ionos: ${doing}: it no longer exists`);
    const host = cluster.object('properties').stringOrNull('dnsName');
    if (host === null || host === '') throw new Error(`ionos: PostgreSQL cluster ${externalId} has no DNS name yet`);
    return { host, port: POSTGRES_PORT, username: POSTGRES_USER, database: POSTGRES_DATABASE };
  }

  setPassword(externalId: string): Promise<void> {
    return Promise.reject(new UnsupportedError(`ionos: PostgreSQL cluster ${externalId}: ${NO_PASSWORD_CHANGE}`));
  }

  createBackup(databaseExternalId: string): Promise<BackupObserved> {
    return Promise.reject(new UnsupportedError(`ionos: PostgreSQL cluster ${databaseExternalId}: ${NO_ON_DEMAND_BACKUPS}`));
  }

  /** Null: cairn never made a backup here (createBackup refuses), so there is none to find. */
  observeBackup(): Promise<BackupObserved | null> {
    return Promise.resolve(null);
  }

  /** Nothing to delete: cairn never made a backup here (createBackup refuses). */
  deleteBackup(): Promise<void> {
    return Promise.resolve();
  }

  restore(databaseExternalId: string): Promise<DatabaseObserved> {
    return Promise.reject(new UnsupportedError(`ionos: PostgreSQL cluster ${databaseExternalId}: ${NO_ON_DEMAND_BACKUPS}`));
  }

  private async get(externalId: string, doing: string, options: CallOptions): Promise<WireReader | null> {
    const answer = await this.client.call({ method: 'GET', path: `/clusters/${id(externalId)}`, doing, accept: [404], signal: options.signal });
    return answer.status === 404 ? null : WireReader.of(answer.body, `ionos: ${doing}`);
  }

  private async list(doing: string, options: CallOptions, nameContains?: string): Promise<WireReader[]> {
    const answer = await this.client.call({ method: 'GET', path: '/clusters', ...(nameContains === undefined ? {} : { query: { 'filter.name': nameContains } }), doing, signal: options.signal });
    const body = WireReader.of(answer.body, `ionos: ${doing}`);
    return body.raw('items') === undefined || body.raw('items') === null ? [] : body.array('items');
  }

  private async findByKey(key: string, options: CallOptions): Promise<DatabaseObserved | null> {
    const marker = `[${KEY_LABEL}=${key}]`;
    const found = (await this.list(`find the PostgreSQL cluster named with ${marker}`, options, marker)).find(
      (cluster) => readServerName(cluster.object('properties').string('displayName')).key === key,
    );
    return found ? readPostgresCluster(found) : null;
  }

  /** The first address of cairn's subnet no cluster on that data center's LAN holds, with its prefix. */
  private async freeAddress(datacenterId: string, lanId: string, doing: string, options: CallOptions): Promise<string> {
    const taken = new Set<string>();
    for (const cluster of await this.list(`${doing}: list clusters for a free address`, options)) {
      const properties = cluster.object('properties');
      const connections = properties.raw('connections') === undefined ? [] : properties.array('connections');
      for (const c of connections) if (c.string('datacenterId') === datacenterId && c.string('lanId') === lanId) taken.add(c.string('cidr').split('/')[0] ?? '');
    }
    for (let host = FIRST_HOST; host <= LAST_HOST; host++) if (!taken.has(`${SUBNET}.${host}`)) return `${SUBNET}.${host}/24`;
    throw new VendorRejectedError(`ionos: ${doing}: every address of ${SUBNET}.0/24 on this LAN is taken by a cluster`);
  }

  private async versions(doing: string, path: string, options: CallOptions): Promise<string[]> {
    const answer = await this.client.call({ method: 'GET', path, doing, signal: options.signal });
    const body = WireReader.of(answer.body, `ionos: ${doing}`);
    return (body.raw('data') === undefined ? [] : body.array('data')).map((v) => v.string('name'));
  }

  /** The cluster once IONOS reports it AVAILABLE (not being made or changed). */
  private async settled(externalId: string, doing: string, options: CallOptions): Promise<DatabaseObserved> {
    let cluster: WireReader | null = null;
    await followAction(
      async () => {
        cluster = await this.get(externalId, doing, options);
        if (!cluster) throw new Error(`ionos: ${doing}: PostgreSQL cluster ${externalId} no longer exists`);
        const state = clusterState(cluster);
        if (state === 'FAILED') return { done: true, failed: 'IONOS reports the cluster FAILED' };
        return { done: state === 'AVAILABLE' };
      },
      { what: `ionos: ${doing}: waiting for the cluster to be AVAILABLE`, intervalMs: this.pollMs, signal: options.signal },
    );
    if (!cluster) throw new Error(`ionos: ${doing}: PostgreSQL cluster ${externalId} was not read`);
    return readPostgresCluster(cluster);
  }
}

function managedOf(desired: DatabaseDesired): NonNullable<DatabaseDesired['managed']> {
  if (desired.managed === undefined) throw new Error(`ionos: database "${desired.name}" has no managed region and size`);
  return desired.managed;
}
