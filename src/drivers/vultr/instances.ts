/**
 * @module Vultr instances as cairn's ExternalClient. Vultr takes no client token, so every
 * instance carries its idempotency key as a tag (key-tag.ts), and a create first looks for an
 * instance with that tag: a create cut short by a crash is found, never made twice. A resize is
 * `update-instance` with the new `plan`, which Vultr makes on the running instance (status
 * `resizing`, then `active`); cairn waits for the instance to settle before and after, and
 * before a power action (Vultr refuses one while the instance is still being made). A region,
 * plan or image Vultr lacks is refused before anything is sent.
 */
import type { CallOptions, ExternalClient, ExternalRef, PowerAction, ServerDesired, ServerObserved } from '../contract.js';
import { followAction } from '../kit/follow-action.js';
import { readAllPages } from '../kit/pagination.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { MANAGED_TAG, tagForKey } from './key-tag.js';
import { nextCursor, readInstance } from './wire-format.js';

const id = encodeURIComponent;

/** Instances per page when looking through the list (Vultr's most). */
const LIST_PAGE = 500;

/** Vultr's instance ids are UUIDs. */
const INSTANCE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Vultr's power operations, by cairn's power action. */
const POWER_PATH: Record<PowerAction, string> = { power_on: 'start', power_off: 'halt', reboot: 'reboot' };

export class VultrInstances implements ExternalClient<ServerDesired, ServerObserved> {
  constructor(
    private readonly client: VendorHttpClient,
    private readonly pollMs: number,
    /** Refuses a region or plan Vultr does not offer, before anything is sent. */
    private readonly checkPlacement: (region: string, size: string) => Promise<void>,
    /** The `os_id` of an image (an OS id, or an OS slug such as `debian-12`); refuses one Vultr lacks. */
    private readonly resolveImage: (image: string) => Promise<number>,
  ) {}

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<ServerObserved | null> {
    if (ref.externalId && INSTANCE_ID.test(ref.externalId)) {
      const found = await this.get(ref.externalId, `observe instance ${ref.externalId}`, options);
      if (found) return found;
    }
    return ref.key === '' ? null : this.findByKey(ref.key, options);
  }

  async get(externalId: string, doing: string, options: CallOptions = {}): Promise<ServerObserved | null> {
    const answer = await this.client.call({ method: 'GET', path: `/instances/${id(externalId)}`, doing, accept: [404], signal: options.signal });
    return answer.status === 404 ? null : readInstance(WireReader.of(answer.body, `vultr: ${doing}`).object('instance'));
  }

  /**
   * The instance tagged with the key, looked for in the whole list (500 a page): the list's `tag`
   * filter is deprecated in Vultr's document, so cairn does not rely on it.
   */
  private async findByKey(key: string, options: CallOptions): Promise<ServerObserved | null> {
    const tag = tagForKey(key);
    const doing = `find instance tagged ${tag}`;
    const instances = await readAllPages(async (cursor) => {
      const query = { per_page: LIST_PAGE, ...(cursor === undefined ? {} : { cursor }) };
      const body = WireReader.of((await this.client.call({ method: 'GET', path: '/instances', query, doing, signal: options.signal })).body, `vultr: ${doing}`);
      return { items: body.array('instances'), next: nextCursor(body) };
    }, `vultr: ${doing}`);
    const found = instances.find((instance) => instance.strings('tags').includes(tag));
    return found ? readInstance(found) : null;
  }

  async create(key: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const existing = await this.findByKey(key, options);
    if (existing) return existing;
    await this.checkPlacement(desired.region, desired.size);
    const osId = await this.resolveImage(desired.image);
    const doing = `create instance "${desired.name}"`;
    const body = { region: desired.region, plan: desired.size, os_id: osId, label: desired.name, hostname: desired.name, tags: [tagForKey(key), MANAGED_TAG], ...(desired.userData ? { user_data: Buffer.from(desired.userData).toString('base64') } : {}) };
    const answer = await this.client.call({ method: 'POST', path: '/instances', body, doing, signal: options.signal });
    return readInstance(WireReader.of(answer.body, `vultr: ${doing}`).object('instance'));
  }

  async update(externalId: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `resize instance "${desired.name}" (${externalId}) to ${desired.size}`;
    const current = await this.settled(externalId, doing, options);
    if (current.size === desired.size) return current;
    await this.checkPlacement(current.region, desired.size);
    await this.client.call({ method: 'PATCH', path: `/instances/${id(externalId)}`, body: { plan: desired.size }, doing, signal: options.signal });
    return this.settled(externalId, doing, options);
  }

  async power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `${action} instance ${externalId}`;
    await this.settled(externalId, doing, options);
    await this.client.call({ method: 'POST', path: `/instances/${id(externalId)}/${POWER_PATH[action]}`, doing, signal: options.signal });
    return this.required(externalId, doing, options);
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    await this.client.call({ method: 'DELETE', path: `/instances/${id(externalId)}`, doing: `delete instance ${externalId}`, accept: [404], signal: options.signal });
  }

  async required(externalId: string, doing: string, options: CallOptions = {}): Promise<ServerObserved> {
    const instance = await this.get(externalId, doing, options);
    if (!instance) throw new Error(`vultr: ${doing}: instance ${externalId} no longer exists`);
    return instance;
  }

  /** The instance once it is running or stopped (a create or resize may still be under way). */
  private async settled(externalId: string, doing: string, options: CallOptions): Promise<ServerObserved> {
    let instance = await this.required(externalId, doing, options);
    if (instance.status === 'running' || instance.status === 'stopped') return instance;
    await followAction(
      async () => {
        instance = await this.required(externalId, doing, options);
        return { done: instance.status === 'running' || instance.status === 'stopped' };
      },
      { what: `vultr: ${doing}: waiting for the instance to settle`, intervalMs: this.pollMs, signal: options.signal },
    );
    return instance;
  }
}
