/**
 * @module Exoscale Compute instances as cairn's ExternalClient. Exoscale takes no client token,
 * so every instance carries its idempotency key as a label (`cairn-key`, with `managed-by` and
 * the zone), and a create first looks for an instance with that label: a create cut short by a
 * crash is found, never made twice. Exoscale's document gives `list-instances` a `labels`
 * filter but not its syntax, so the list is filtered here. Every change (create, start, stop,
 * reboot, scale, delete) answers with an operation, followed with `get-operation` to its end.
 * A resize is `scale-instance`, which Exoscale refuses on a running instance: it is stopped,
 * scaled and started again when it was running. Instances are zone-local: each call goes to the
 * API of the instance's zone, named in cairn's id (`<uuid>@<zone>`).
 */
import type { CallOptions, ExternalClient, ExternalRef, PowerAction, ServerDesired, ServerObserved } from '../contract.js';
import { VendorRejectedError } from '../errors.js';
import { followAction } from '../kit/follow-action.js';
import { keyFromLabels, ownershipLabels } from '../kit/ownership-labels.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { DISK_GB, externalIdOf, parseExternalId, readInstance, readLabels, readOperation, ZONE_LABEL } from './wire-format.js';

const id = encodeURIComponent;

/** Exoscale's power operations, by cairn's power action. */
const POWER: Record<PowerAction, string> = { power_on: 'start', power_off: 'stop', reboot: 'reboot' };

/** What the instances client needs from the driver around it. */
export interface ExoscaleZones {
  /** The API client of a zone (one per zone at Exoscale; one for all behind `spec.endpoint`). */
  clientFor(zone: string): VendorHttpClient;
  /** The zones to search for an instance by its key, one per distinct API. */
  searchZones(): Promise<string[]>;
  /** Refuses a zone or instance type Exoscale does not offer, before anything is sent. */
  checkPlacement(zone: string, size: string): Promise<void>;
  /** Instance types: slug by id, and id by slug. */
  instanceTypes(): Promise<{ slugOf: (typeId: string) => string; idOf: (slug: string) => string | undefined }>;
  /** The template id of an image in a zone (a template UUID, or a slug such as `debian-12`). */
  resolveTemplate(zone: string, image: string): Promise<string>;
}

export class ExoscaleInstances implements ExternalClient<ServerDesired, ServerObserved> {
  constructor(
    private readonly zones: ExoscaleZones,
    private readonly pollMs: number,
  ) {}

  private where(externalId: string): { id: string; zone: string; client: VendorHttpClient } {
    const parsed = parseExternalId(externalId);
    if (!parsed) throw new VendorRejectedError(`exoscale: "${externalId}" is not an instance id of cairn's (<uuid>@<zone>)`, { field: 'externalId' });
    return { ...parsed, client: this.zones.clientFor(parsed.zone) };
  }

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<ServerObserved | null> {
    if (ref.externalId && parseExternalId(ref.externalId)) {
      const found = await this.get(ref.externalId, `observe instance ${ref.externalId}`, options);
      if (found) return found;
    }
    if (ref.key === '') return null;
    for (const zone of await this.zones.searchZones()) {
      const found = await this.findByKey(zone, ref.key, options);
      if (found) return found;
    }
    return null;
  }

  async get(externalId: string, doing: string, options: CallOptions = {}): Promise<ServerObserved | null> {
    const { id: uuid, zone, client } = this.where(externalId);
    const answer = await client.call({ method: 'GET', path: `/instance/${id(uuid)}`, doing, accept: [404], signal: options.signal });
    if (answer.status === 404) return null;
    const types = await this.zones.instanceTypes();
    return readInstance(WireReader.of(answer.body, `exoscale: ${doing}`), zone, types.slugOf);
  }

  private async findByKey(zone: string, key: string, options: CallOptions): Promise<ServerObserved | null> {
    const doing = `find the instance labelled cairn-key=${key} in ${zone}`;
    const answer = await this.zones.clientFor(zone).call({ method: 'GET', path: '/instance', doing, signal: options.signal });
    const found = WireReader.of(answer.body, `exoscale: ${doing}`).array('instances').find((i) => keyFromLabels(readLabels(i)) === key);
    if (!found) return null;
    const types = await this.zones.instanceTypes();
    return readInstance(found, zone, types.slugOf);
  }

  async create(key: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const zone = desired.region;
    // First the placement: a zone Exoscale lacks has no API host to ask.
    await this.zones.checkPlacement(zone, desired.size);
    const existing = await this.findByKey(zone, key, options);
    if (existing) return existing;
    const typeId = (await this.zones.instanceTypes()).idOf(desired.size);
    if (typeId === undefined) throw new VendorRejectedError(`exoscale: size "${desired.size}" is not an instance type of Exoscale's`, { field: 'size' });
    const templateId = await this.zones.resolveTemplate(zone, desired.image);
    const doing = `create instance "${desired.name}" in ${zone}`;
    const body: Record<string, unknown> = {
      name: desired.name,
      'instance-type': { id: typeId },
      template: { id: templateId },
      'disk-size': DISK_GB,
      labels: { ...ownershipLabels(key), [ZONE_LABEL]: zone },
    };
    if (desired.userData) body['user-data'] = Buffer.from(desired.userData, 'utf8').toString('base64');
    const client = this.zones.clientFor(zone);
    const answer = await client.call({ method: 'POST', path: '/instance', body, doing, signal: options.signal });
    const instanceId = await this.follow(client, answer.body, doing, options);
    return this.required(externalIdOf(instanceId, zone), doing, options);
  }

  async update(externalId: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `resize instance "${desired.name}" (${externalId}) to ${desired.size}`;
    const current = await this.settled(externalId, doing, options);
    if (current.size === desired.size) return current;
    await this.zones.checkPlacement(current.region, desired.size);
    const typeId = (await this.zones.instanceTypes()).idOf(desired.size);
    if (typeId === undefined) throw new VendorRejectedError(`exoscale: size "${desired.size}" is not an instance type of Exoscale's`, { field: 'size' });
    const { id: uuid, client } = this.where(externalId);
    const wasRunning = current.status === 'running';
    if (wasRunning) await this.operate(client, 'PUT', `/instance/${id(uuid)}:stop`, undefined, `${doing}: stop it first`, options);
    await this.operate(client, 'PUT', `/instance/${id(uuid)}:scale`, { 'instance-type': { id: typeId } }, doing, options);
    if (wasRunning) await this.operate(client, 'PUT', `/instance/${id(uuid)}:start`, {}, `${doing}: start it again`, options);
    return this.required(externalId, doing, options);
  }

  async power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `${action} instance ${externalId}`;
    await this.settled(externalId, doing, options);
    const { id: uuid, client } = this.where(externalId);
    // start-instance takes a body (its rescue profile, none here); stop and reboot take none.
    await this.operate(client, 'PUT', `/instance/${id(uuid)}:${POWER[action]}`, action === 'power_on' ? {} : undefined, doing, options);
    return this.required(externalId, doing, options);
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    const doing = `delete instance ${externalId}`;
    const { id: uuid, client } = this.where(externalId);
    const answer = await client.call({ method: 'DELETE', path: `/instance/${id(uuid)}`, doing, accept: [404], signal: options.signal });
    if (answer.status !== 404) await this.follow(client, answer.body, doing, options);
  }

  async required(externalId: string, doing: string, options: CallOptions = {}): Promise<ServerObserved> {
    const instance = await this.get(externalId, doing, options);
    if (!instance) throw new Error(`exoscale: ${doing}: instance ${externalId} no longer exists`);
    return instance;
  }

  /** Sends a change and follows the operation it answers with to its end. */
  private async operate(client: VendorHttpClient, method: 'PUT', path: string, body: unknown, doing: string, options: CallOptions): Promise<void> {
    const answer = await client.call({ method, path, ...(body === undefined ? {} : { body }), doing, signal: options.signal });
    await this.follow(client, answer.body, doing, options);
  }

  /** Follows an operation until it succeeds; the id of the instance it refers to. */
  private async follow(client: VendorHttpClient, started: unknown, doing: string, options: CallOptions): Promise<string> {
    let operation = WireReader.of(started, `exoscale: ${doing}`);
    const operationId = operation.string('id');
    let state = readOperation(operation);
    if (!state.done) {
      await followAction(
        async () => {
          const answer = await client.call({ method: 'GET', path: `/operation/${id(operationId)}`, doing: `${doing}: follow operation ${operationId}`, signal: options.signal });
          operation = WireReader.of(answer.body, `exoscale: ${doing}: operation`);
          state = readOperation(operation);
          return state;
        },
        { what: `exoscale: ${doing}`, intervalMs: this.pollMs, signal: options.signal },
      );
    } else if (state.failed !== undefined) {
      throw new VendorRejectedError(`exoscale: ${doing}: the vendor's action failed: ${state.failed}`);
    }
    return operation.object('reference').string('id');
  }

  /** The instance once it is running or stopped (a create, start or stop may still be under way). */
  private async settled(externalId: string, doing: string, options: CallOptions): Promise<ServerObserved> {
    let instance = await this.required(externalId, doing, options);
    if (instance.status === 'running' || instance.status === 'stopped') return instance;
    await followAction(
      async () => {
        instance = await this.required(externalId, doing, options);
        return { done: instance.status === 'running' || instance.status === 'stopped' };
      },
      { what: `exoscale: ${doing}: waiting for the instance to settle`, intervalMs: this.pollMs, signal: options.signal },
    );
    return instance;
  }
}
