/**
 * @module Exoscale DBaaS for PostgreSQL as cairn's DatabaseRuntime. A service's name is its id at
 * Exoscale, so cairn names it from its idempotency key (dbaas-wire.ts `serviceNameFor`): a create
 * first asks for that name and a create whose answer was lost is found, never made twice. The
 * zone (cairn's `region`) picks the API host, and cairn's id is `<name>@<zone>`. The plan (cairn's
 * `size`), zone and version are checked against `list-dbaas-service-types` (`pg`) before anything
 * is sent. The admin user is created with cairn's password (`admin-password`), and a rotation is
 * `reset-dbaas-postgres-user-password`. A plan change is an in-place `update-dbaas-service-pg`
 * followed until the service is `running` again.
 *
 * What Exoscale does not let cairn do is refused, saying why: it takes backups on its own
 * schedule and has no endpoint to take one on demand (so no backup, final backup or restore
 * through cairn); a plan fixes the disk; a new major version is its upgrade endpoint's work.
 */
import type { CallOptions, DatabaseDesired, DatabaseEndpoint, DatabaseObserved, DatabaseRuntime, ExternalRef, ManagedDatabaseDriver } from '../contract.js';
import { UnsupportedError, VendorRejectedError } from '../errors.js';
import { followAction } from '../kit/follow-action.js';
import { ManagedDatabasesWithoutBackups } from '../kit/backups-refused.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { HOME_ZONE, type ExoscaleApis } from './cloud-driver.js';
import { adminUserOf, isRunning, parseServiceId, readPgOffer, readService, readServiceEndpoint, serviceIdOf, serviceNameFor, type PgOffer } from './dbaas-wire.js';
import { readOperation } from './wire-format.js';

const id = encodeURIComponent;

/** The admin user cairn creates each service with. */
export const ADMIN_USER = 'cairn';

/** Why cairn takes no backups of Exoscale's DBaaS services (said in every refusal). */
export const NO_ON_DEMAND_BACKUPS =
  'Exoscale takes backups of its DBaaS services on its own schedule (listed in the service, restored by forking in its portal) and its API has no endpoint to take one on demand, so cairn cannot take or restore backups of them; ' +
  'to delete one without a final backup, set the annotation cairn.dev/skip-final-backup: "true"';

/** How long the offer (versions, plans and their zones) is kept: it changes rarely. */
const OFFER_TTL_MS = 10 * 60_000;

export class ExoscaleManagedDatabases extends ManagedDatabasesWithoutBackups implements DatabaseRuntime {
  private offer: { at: number; body: Promise<PgOffer | undefined> } | undefined;

  constructor(
    private readonly apis: ExoscaleApis,
    private readonly pollMs: number,
  ) {
    super((id) => `exoscale: database service ${id}: ${NO_ON_DEMAND_BACKUPS}`);
  }

  private where(externalId: string): { name: string; zone: string; client: VendorHttpClient } {
    const parsed = parseServiceId(externalId);
    if (!parsed) throw new VendorRejectedError(`exoscale: "${externalId}" is not a database service id of cairn's (<name>@<zone>)`, { field: 'externalId' });
    return { ...parsed, client: this.apis.clientFor(parsed.zone) };
  }

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<DatabaseObserved | null> {
    if (ref.externalId && parseServiceId(ref.externalId)) {
      const found = await this.get(ref.externalId, `observe database service ${ref.externalId}`, options);
      if (found) return readService(found, this.where(ref.externalId).zone, this.keyOf(found, ref.key));
    }
    if (ref.key === '') return null;
    const zones = this.apis.single ? [HOME_ZONE] : await this.zones(options);
    for (const zone of zones) {
      const found = await this.get(serviceIdOf(serviceNameFor(ref.key), zone), `find the database service of key ${ref.key} in ${zone}`, options);
      if (found) return readService(found, zone, ref.key);
    }
    return null;
  }

  async create(key: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const managed = this.managedOf(desired);
    const externalId = serviceIdOf(serviceNameFor(key), managed.region);
    const existing = await this.get(externalId, `find the database service of key ${key}`, options);
    if (existing) return readService(existing, managed.region, key);
    const doing = `create postgresql database service "${desired.name}" (${serviceNameFor(key)}) in ${managed.region}`;
    if (desired.type !== 'postgresql') throw new VendorRejectedError(`exoscale managed ${desired.type} is not built: cairn runs only PostgreSQL on Exoscale's DBaaS`, { field: 'type' });
    if (!/^[a-zA-Z0-9_-]{8,256}$/.test(desired.password)) {
      throw new VendorRejectedError('exoscale managed postgresql: the password must be 8 to 256 letters, digits, "-" or "_" (Exoscale takes no other admin password)', { field: 'password' });
    }
    const zones = await this.zones(options);
    if (!zones.includes(managed.region)) throw new VendorRejectedError(`exoscale managed postgresql: region "${managed.region}" is not an Exoscale zone; zones: ${zones.join(', ')}`, { field: 'region' });
    const plan = await this.checkOffer(managed.region, managed.size, desired.version, doing, options);
    checkStorage(desired.storageGb, plan.name, plan.diskGb);
    const body = { plan: managed.size, version: desired.version, 'admin-username': ADMIN_USER, 'admin-password': desired.password, 'termination-protection': false };
    const { name, client } = this.where(externalId);
    await client.call({ method: 'POST', path: `/dbaas-postgres/${id(name)}`, body, doing, signal: options.signal });
    const made = await this.get(externalId, doing, options);
    if (!made) throw new Error(`exoscale: ${doing}: the service is not there after its create was accepted`);
    return readService(made, managed.region, key);
  }

  async update(externalId: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const managed = this.managedOf(desired);
    const { name, zone, client } = this.where(externalId);
    const doing = `change database service ${externalId} to plan ${managed.size}`;
    const current = await this.settled(externalId, doing, options);
    if (current.version !== desired.version) {
      throw new UnsupportedError(
        `exoscale: database service ${externalId} runs postgresql ${current.version}; Exoscale changes a service's major version only through its own upgrade endpoint, which cairn does not drive: ` +
          `set spec.version back to "${current.version}", or replace the database (a new one on ${desired.version}) and move the data`,
      );
    }
    const planChanges = current.size !== managed.size;
    if (!planChanges) {
      if (desired.storageGb !== null && desired.storageGb !== current.storageGb) checkStorage(desired.storageGb, managed.size, current.storageGb);
      return current;
    }
    // The version is not checked: a service keeps running one Exoscale no longer offers for new services.
    const plan = await this.checkOffer(zone, managed.size, undefined, doing, options);
    checkStorage(desired.storageGb, plan.name, plan.diskGb);
    await client.call({ method: 'PUT', path: `/dbaas-postgres/${id(name)}`, body: { plan: managed.size }, doing, signal: options.signal });
    return this.settled(externalId, doing, options, managed.size);
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    const { name, client } = this.where(externalId);
    await client.call({ method: 'DELETE', path: `/dbaas-service/${id(name)}`, doing: `delete database service ${externalId}`, accept: [404], signal: options.signal });
  }

  async endpoint(externalId: string, options: CallOptions = {}): Promise<DatabaseEndpoint> {
    return readServiceEndpoint(await this.required(externalId, `read the connection of database service ${externalId}`, options), externalId);
  }

  /** Sets the admin user's password (`reset-dbaas-postgres-user-password`), followed to its end. */
  async setPassword(externalId: string, password: string, options: CallOptions = {}): Promise<void> {
    const doing = `set the password of database service ${externalId}`;
    const { name, client } = this.where(externalId);
    const user = adminUserOf(await this.required(externalId, doing, options), externalId);
    const answer = await client.call({ method: 'PUT', path: `/dbaas-postgres/${id(name)}/user/${id(user)}/password/reset`, body: { password }, doing, signal: options.signal });
    await this.follow(client, answer.body, doing, options);
  }

  private managedOf(desired: DatabaseDesired): NonNullable<DatabaseDesired['managed']> {
    if (desired.managed === undefined) throw new Error(`exoscale: database "${desired.name}" has no managed region and size`);
    return desired.managed;
  }

  /** The key of a service found by id: the one asked with, when the name is that key's. */
  private keyOf(service: WireReader, key: string): string {
    return key !== '' && service.string('name') === serviceNameFor(key) ? key : '';
  }

  private async get(externalId: string, doing: string, options: CallOptions): Promise<WireReader | null> {
    const { name, client } = this.where(externalId);
    const answer = await client.call({ method: 'GET', path: `/dbaas-postgres/${id(name)}`, doing, accept: [404], signal: options.signal });
    return answer.status === 404 ? null : WireReader.of(answer.body, `exoscale: ${doing}`);
  }

  private async required(externalId: string, doing: string, options: CallOptions): Promise<WireReader> {
    const service = await this.get(externalId, doing, options);
    if (!service) throw new Error(`exoscale: ${doing}: database service ${externalId} no longer exists`);
    return service;
  }

  private async zones(options: CallOptions): Promise<string[]> {
    const answer = await this.apis.clientFor(HOME_ZONE).call({ method: 'GET', path: '/zone', doing: 'list zones', signal: options.signal });
    return WireReader.of(answer.body, 'exoscale: list zones').array('zones').map((z) => z.string('name'));
  }

  /** The service once it is `running` (and on `plan`, when given: a plan change may not show at once). */
  private async settled(externalId: string, doing: string, options: CallOptions, plan?: string): Promise<DatabaseObserved> {
    const zone = this.where(externalId).zone;
    let service = await this.required(externalId, doing, options);
    await followAction(
      async () => {
        service = await this.required(externalId, doing, options);
        return { done: isRunning(service) && (plan === undefined || service.raw('plan') === plan) };
      },
      { what: `exoscale: ${doing}: waiting for the service to be running`, intervalMs: this.pollMs, signal: options.signal },
    );
    return readService(service, zone, '');
  }

  /** Follows an operation Exoscale answered with to its end; a failure is thrown with Exoscale's reason. */
  private async follow(client: VendorHttpClient, started: unknown, doing: string, options: CallOptions): Promise<void> {
    let operation = WireReader.of(started, `exoscale: ${doing}`);
    let state = readOperation(operation);
    if (!state.done) {
      const operationId = operation.string('id');
      await followAction(
        async () => {
          const answer = await client.call({ method: 'GET', path: `/operation/${id(operationId)}`, doing: `${doing}: follow operation ${operationId}`, signal: options.signal });
          operation = WireReader.of(answer.body, `exoscale: ${doing}: operation`);
          state = readOperation(operation);
          return state;
        },
        { what: `exoscale: ${doing}`, intervalMs: this.pollMs, signal: options.signal },
      );
    }
    if (state.done && state.failed !== undefined) throw new VendorRejectedError(`exoscale: ${doing}: ${state.failed}`);
  }

  private offerBody(doing: string, options: CallOptions, fresh: boolean): Promise<PgOffer | undefined> {
    if (!fresh && this.offer && Date.now() - this.offer.at < OFFER_TTL_MS) return this.offer.body;
    const body = this.apis
      .clientFor(HOME_ZONE)
      .call({ method: 'GET', path: '/dbaas-service-type', doing: `${doing}: read the DBaaS plans`, signal: options.signal })
      .then((answer) => readPgOffer(WireReader.of(answer.body, `exoscale: ${doing}`)));
    const entry = { at: Date.now(), body };
    this.offer = entry;
    body.catch(() => {
      if (this.offer === entry) this.offer = undefined;
    });
    return body;
  }

  /**
   * The plan, refusing (naming the valid ones) a plan, zone or version (when given) Exoscale does
   * not offer, before anything is sent; a miss reads the offer again once, in case it grew.
   */
  private async checkOffer(zone: string, size: string, version: string | undefined, doing: string, options: CallOptions): Promise<PgOffer['plans'][number]> {
    let checked = offerProblem(await this.offerBody(doing, options, false), zone, size, version);
    if (checked instanceof VendorRejectedError) checked = offerProblem(await this.offerBody(doing, options, true), zone, size, version);
    if (checked instanceof VendorRejectedError) throw checked;
    return checked;
  }
}

function offerProblem(offer: PgOffer | undefined, zone: string, size: string, version: string | undefined): VendorRejectedError | PgOffer['plans'][number] {
  const what = 'exoscale managed postgresql';
  if (offer === undefined) return new VendorRejectedError(`${what} is not offered by Exoscale at the moment`, { field: 'type' });
  const inZone = offer.plans.filter((p) => p.zones === null || p.zones.includes(zone));
  if (inZone.length === 0) {
    const zones = [...new Set(offer.plans.flatMap((p) => p.zones ?? []))].sort();
    return new VendorRejectedError(`${what}: region "${zone}" is not offered; regions: ${zones.join(', ')}`, { field: 'region' });
  }
  const plan = inZone.find((p) => p.name === size);
  if (!plan) return new VendorRejectedError(`${what}: size "${size}" is not a plan in ${zone}; plans: ${inZone.map((p) => p.name).join(', ')}`, { field: 'size' });
  if (version !== undefined && !offer.versions.includes(version)) return new VendorRejectedError(`${what}: version "${version}" is not offered; versions: ${offer.versions.join(', ')}`, { field: 'version' });
  return plan;
}

/** Exoscale's plans fix the disk: a storageGb other than the plan's is refused, naming it. */
function checkStorage(storageGb: number | null, plan: string, planGb: number | null): void {
  if (storageGb === null || storageGb === planGb) return;
  throw new VendorRejectedError(
    `exoscale managed postgresql: storageGb ${storageGb} cannot be chosen: Exoscale's plan fixes the disk (${plan}: ${planGb ?? 'unknown'} GB); leave storageGb unset or choose a plan with that disk`,
    { field: 'storageGb' },
  );
}

/** Exoscale's DBaaS for PostgreSQL as cairn's ManagedDatabaseDriver. */
export class ExoscaleManagedDatabaseDriver implements ManagedDatabaseDriver {
  readonly vendor = 'exoscale';
  readonly databases: ExoscaleManagedDatabases;

  constructor(apis: ExoscaleApis, pollMs = 1000) {
    this.databases = new ExoscaleManagedDatabases(apis, pollMs);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
