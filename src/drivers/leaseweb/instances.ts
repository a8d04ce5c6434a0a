/**
 * @module Leaseweb Public Cloud instances as cairn's ExternalClient. Leaseweb takes no client
 * token and has no tags, so every instance carries its name and idempotency key in its
 * `reference` (reference.ts), and a create first looks for an instance with that key (every page
 * of `getInstanceList`: its `reference` filter needs the whole reference, which `observe` after a
 * lost answer cannot know): a create cut short by a crash is found, never made twice. Instances
 * are launched hourly (contractType HOURLY, contractTerm 0, billingFrequency 1, the only terms
 * that need no commitment), with a root disk of ROOT_DISK_GB on the type's storage type; user
 * data goes as plain text in `userData` (Leaseweb refuses base64 there, and `sshKey` together
 * with it, so SSH keys travel inside the user data). A resize is `updateInstance` with `type`,
 * in place, but only to a type Leaseweb lists for that instance (`getUpdateInstanceTypeList`:
 * upgrades); any other is refused with an UnsupportedError before anything is sent. An instance
 * in DESTROYED state is observed as gone.
 */
import type { CallOptions, ExternalClient, ExternalRef, PowerAction, ServerDesired, ServerObserved } from '../contract.js';
import { UnsupportedError, VendorRejectedError } from '../errors.js';
import { followAction } from '../kit/follow-action.js';
import { readAllPages } from '../kit/pagination.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { carriesKey, referenceFor } from './reference.js';
import { leasewebImage, nextOffset, readInstance } from './wire-format.js';

/** The root disk every instance gets, in GB (Leaseweb's minimum for Linux is 5). */
export const ROOT_DISK_GB = 50;
/** Items per page cairn asks for. */
export const PAGE_SIZE = 50;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Leaseweb's power operations, by cairn's power action. */
const POWER_PATH: Record<PowerAction, string> = { power_on: 'start', power_off: 'stop', reboot: 'reboot' };

export class LeasewebInstances implements ExternalClient<ServerDesired, ServerObserved> {
  constructor(
    private readonly client: VendorHttpClient,
    private readonly pollMs: number,
    /** Refuses a region or type Leaseweb does not offer, before anything is sent. */
    private readonly checkPlacement: (region: string, size: string) => Promise<void>,
    /** The storage type the root disk of this type is launched on. */
    private readonly storageTypeOf: (size: string) => string,
  ) {}

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<ServerObserved | null> {
    if (ref.externalId && UUID.test(ref.externalId)) {
      const found = await this.get(ref.externalId, `observe instance ${ref.externalId}`, options, ref.key);
      if (found) return found;
    }
    return ref.key === '' ? null : this.findByKey(ref.key, options);
  }

  /** The instance, or null when it is gone (404, or DESTROYED). */
  async get(externalId: string, doing: string, options: CallOptions = {}, key?: string): Promise<ServerObserved | null> {
    const answer = await this.client.call({ method: 'GET', path: `/instances/${externalId}`, doing, accept: [404], signal: options.signal });
    if (answer.status === 404) return null;
    const instance = WireReader.of(answer.body, `leaseweb: ${doing}`);
    return instance.string('state') === 'DESTROYED' ? null : readInstance(instance, key);
  }

  private async findByKey(key: string, options: CallOptions): Promise<ServerObserved | null> {
    const doing = `find the instance of key ${key}`;
    const all = await readAllPages(async (offset) => {
      const answer = await this.client.call({ method: 'GET', path: '/instances', query: { limit: PAGE_SIZE, offset: offset ?? '0' }, doing, signal: options.signal });
      const body = WireReader.of(answer.body, `leaseweb: ${doing}`);
      const items = body.array('instances');
      return { items, next: nextOffset(body, items.length) };
    }, `leaseweb: ${doing}`);
    const mine = all.find((i) => i.string('state') !== 'DESTROYED' && carriesKey(i.stringOrNull('reference'), key));
    return mine ? readInstance(mine, key) : null;
  }

  async create(key: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const imageId = leasewebImage(desired.image);
    if (imageId === undefined) {
      throw new VendorRejectedError(`leaseweb: image "${desired.image}" is neither a Leaseweb image id (DEBIAN_12_64BIT, a custom image's UUID) nor a distribution and version (debian-12, ubuntu-24.04)`, { field: 'image' });
    }
    const existing = await this.findByKey(key, options);
    if (existing) return existing;
    await this.checkPlacement(desired.region, desired.size);
    const reference = referenceFor(desired.name, key);
    const doing = `launch instance "${desired.name}"`;
    const userData = desired.userData ?? '';
    const body = {
      region: desired.region, type: desired.size, imageId, reference, contractType: 'HOURLY', contractTerm: 0, billingFrequency: 1,
      rootDiskSize: ROOT_DISK_GB, rootDiskStorageType: this.storageTypeOf(desired.size),
      ...(userData === '' ? {} : { userData }),
    };
    const answer = await this.client.call({ method: 'POST', path: '/instances', body, doing, signal: options.signal });
    return readInstance(WireReader.of(answer.body, `leaseweb: ${doing}`), key);
  }

  async update(externalId: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `resize instance "${desired.name}" (${externalId}) to ${desired.size}`;
    const current = await this.settled(externalId, doing, options);
    if (current.size === desired.size) return current;
    await this.checkPlacement(current.region, desired.size);
    const eligible = await this.typesForUpdate(externalId, doing, options);
    if (!eligible.includes(desired.size)) {
      throw new UnsupportedError(
        `leaseweb: ${doing}: Leaseweb changes an instance only to the types it lists for it (larger ones: ${eligible.join(', ') || 'none'}); ${current.size} → ${desired.size} is not among them, so replace the server to make it smaller`,
      );
    }
    await this.client.call({ method: 'PUT', path: `/instances/${externalId}`, body: { type: desired.size }, doing, signal: options.signal });
    return this.settled(externalId, doing, options);
  }

  private async typesForUpdate(externalId: string, doing: string, options: CallOptions): Promise<string[]> {
    const types = await readAllPages(async (offset) => {
      const answer = await this.client.call({ method: 'GET', path: `/instances/${externalId}/instanceTypesUpdate`, query: { limit: PAGE_SIZE, offset: offset ?? '0' }, doing, signal: options.signal });
      const body = WireReader.of(answer.body, `leaseweb: ${doing}`);
      const items = body.array('instanceTypes');
      return { items, next: nextOffset(body, items.length) };
    }, `leaseweb: ${doing}`);
    return types.map((t) => t.string('name'));
  }

  async power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `${action} instance ${externalId}`;
    const current = await this.settled(externalId, doing, options);
    // Leaseweb refuses to start a running instance or stop a stopped one; rebooting a stopped one is starting it.
    if ((action === 'power_on' && current.status === 'running') || (action === 'power_off' && current.status === 'stopped')) return current;
    const operation = action === 'reboot' && current.status === 'stopped' ? POWER_PATH.power_on : POWER_PATH[action];
    await this.client.call({ method: 'POST', path: `/instances/${externalId}/${operation}`, doing, signal: options.signal });
    return this.settled(externalId, doing, options);
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    if (!UUID.test(externalId)) return;
    const doing = `terminate instance ${externalId}`;
    const current = await this.get(externalId, doing, options);
    if (current === null) return;
    if (current.status !== 'deleting') {
      // Leaseweb refuses to terminate an instance still being created: wait for it to come up first.
      if (current.status !== 'running' && current.status !== 'stopped') await this.settled(externalId, doing, options);
      await this.client.call({ method: 'DELETE', path: `/instances/${externalId}`, doing, accept: [404], signal: options.signal });
    }
    // Done once the instance is gone (DESTROYED), not while Leaseweb is still destroying it.
    await followAction(async () => ({ done: (await this.get(externalId, doing, options)) === null }), {
      what: `leaseweb: ${doing}: waiting for the instance to be gone`, intervalMs: this.pollMs, signal: options.signal,
    });
  }

  private async required(externalId: string, doing: string, options: CallOptions): Promise<ServerObserved> {
    const instance = await this.get(externalId, doing, options);
    if (!instance) throw new Error(`leaseweb: ${doing}: instance ${externalId} no longer exists`);
    return instance;
  }

  /** The instance once it is running or stopped (a launch, power action or resize may be under way). */
  private async settled(externalId: string, doing: string, options: CallOptions): Promise<ServerObserved> {
    let instance = await this.required(externalId, doing, options);
    const still = (s: ServerObserved): boolean => s.status !== 'running' && s.status !== 'stopped';
    if (!still(instance)) return instance;
    await followAction(
      async () => {
        instance = await this.required(externalId, doing, options);
        if (instance.status === 'error') return { done: true, failed: `the instance is in state FAILED or UNKNOWN` };
        return { done: !still(instance) };
      },
      { what: `leaseweb: ${doing}: waiting for the instance to settle`, intervalMs: this.pollMs, signal: options.signal },
    );
    return instance;
  }
}
