/**
 * @module Contabo instances as cairn's ExternalClient. A create first looks for an instance with
 * the key's display name (display-name.ts), so a create cut short is found, never made twice;
 * it sends the product, region, image, `userData` (plain cloud-init text, as the document takes
 * it) and `defaultUser: root`, for a one-month term. Contabo cannot delete an instance at once:
 * `cancelInstance` ends it at the end of its term, so cairn's delete is a cancel, and a cancelled
 * instance is gone for cairn (observe answers null) although it runs, and is billed, until then.
 * Contabo cannot change an instance's product in place (its `upgradeInstance` adds add-ons only),
 * so update refuses a new size: the server must be replaced.
 */
import type { CallOptions, ExternalClient, ExternalRef, PowerAction, ServerDesired, ServerObserved } from '../contract.js';
import { UnsupportedError } from '../errors.js';
import { followAction } from '../kit/follow-action.js';
import { readAllPages } from '../kit/pagination.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { displayNameFor } from './display-name.js';
import { nextPage, readInstance, type ContaboInstance } from './wire-format.js';

const INSTANCE_ID = /^[1-9]\d{0,17}$/;

const POWER_PATH: Record<PowerAction, string> = { power_on: 'start', power_off: 'stop', reboot: 'restart' };
const POWER_TARGET: Record<PowerAction, ServerObserved['status']> = { power_on: 'running', power_off: 'stopped', reboot: 'running' };

export class ContaboInstances implements ExternalClient<ServerDesired, ServerObserved> {
  constructor(
    private readonly client: VendorHttpClient,
    private readonly pollMs: number,
    private readonly checkPlacement: (region: string, size: string) => Promise<void>,
    /** The image id for an image name (`debian-12`) or id; refuses one Contabo lacks. */
    private readonly resolveImage: (image: string) => Promise<string>,
    /** The image name for an image id, when Contabo lists it. */
    private readonly imageName: (imageId: string) => Promise<string>,
  ) {}

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<ServerObserved | null> {
    if (ref.externalId && INSTANCE_ID.test(ref.externalId)) {
      const found = await this.get(ref.externalId, `observe instance ${ref.externalId}`, options);
      if (found && !found.cancelled) return this.observed(found, ref.key);
      if (found) return null;
    }
    return ref.key === '' ? null : this.findByKey(ref.key, options);
  }

  private async observed(instance: ContaboInstance, key: string): Promise<ServerObserved> {
    const { key: carried, ...rest } = instance.observed;
    return { ...rest, clientToken: carried ?? (key === '' ? '' : key), image: await this.imageName(instance.imageId) };
  }

  private async get(externalId: string, doing: string, options: CallOptions): Promise<ContaboInstance | null> {
    const answer = await this.client.call({ method: 'GET', path: `/v1/compute/instances/${externalId}`, doing, accept: [404], signal: options.signal });
    if (answer.status === 404) return null;
    const [first] = WireReader.of(answer.body, `contabo: ${doing}`).array('data');
    return first ? readInstance(first) : null;
  }

  /** The live (not cancelled) instance carrying `key`, if any. */
  private async findByKey(key: string, options: CallOptions): Promise<ServerObserved | null> {
    const all = await this.listByKey(key, options);
    const live = all.find((i) => !i.cancelled && i.observed.key === key);
    return live ? this.observed(live, key) : null;
  }

  private listByKey(key: string, options: CallOptions): Promise<ContaboInstance[]> {
    const doing = `find the instance of key ${key}`;
    return readAllPages(async (page) => {
      const answer = await this.client.call({ method: 'GET', path: '/v1/compute/instances', query: { search: key, page: page ?? 1, size: 100 }, doing, signal: options.signal });
      const body = WireReader.of(answer.body, `contabo: ${doing}`);
      return { items: body.array('data').map(readInstance), next: nextPage(body) };
    }, `contabo: ${doing}`);
  }

  async create(key: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const displayName = displayNameFor(desired.name, key);
    const existing = await this.findByKey(key, options);
    if (existing) return existing;
    await this.checkPlacement(desired.region, desired.size);
    const imageId = await this.resolveImage(desired.image);
    const doing = `create instance "${desired.name}"`;
    const body = {
      imageId, productId: desired.size, region: desired.region, displayName, defaultUser: 'root', period: 1,
      ...(desired.userData === undefined || desired.userData === null || desired.userData === '' ? {} : { userData: desired.userData }),
    };
    const answer = await this.client.call({ method: 'POST', path: '/v1/compute/instances', body, doing, signal: options.signal });
    const [made] = WireReader.of(answer.body, `contabo: ${doing}`).array('data');
    if (!made) throw new Error(`contabo: ${doing}: the answer names no instance`);
    return this.required(String(made.number('instanceId')), doing, options, key);
  }

  async update(externalId: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `resize instance "${desired.name}" (${externalId}) to ${desired.size}`;
    const current = await this.required(externalId, doing, options);
    if (current.size === desired.size) return current;
    throw new UnsupportedError(
      `contabo: ${doing}: Contabo cannot change an instance's product in place (its API upgrades add-ons only); replace the server to change its size from ${current.size} to ${desired.size}`,
    );
  }

  async power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `${action} instance ${externalId}`;
    await this.settled(externalId, doing, options);
    await this.client.call({ method: 'POST', path: `/v1/compute/instances/${externalId}/actions/${POWER_PATH[action]}`, doing, signal: options.signal });
    return this.settled(externalId, doing, options, POWER_TARGET[action]);
  }

  /** Cancels the instance (Contabo ends it at the end of its term); gone or cancelled already is done. */
  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    const doing = `cancel instance ${externalId}`;
    if (!INSTANCE_ID.test(externalId)) return;
    const found = await this.get(externalId, doing, options);
    if (!found || found.cancelled) return;
    await this.client.call({ method: 'POST', path: `/v1/compute/instances/${externalId}/cancel`, body: {}, doing, accept: [404], signal: options.signal });
  }

  private async required(externalId: string, doing: string, options: CallOptions, key = ''): Promise<ServerObserved> {
    const instance = await this.get(externalId, doing, options);
    if (!instance || instance.cancelled) throw new Error(`contabo: ${doing}: instance ${externalId} no longer exists (or is cancelled)`);
    return this.observed(instance, key);
  }

  /** The instance once it is running or stopped (or at `target`): a create or power action may still be under way. */
  private async settled(externalId: string, doing: string, options: CallOptions, target?: ServerObserved['status']): Promise<ServerObserved> {
    const done = (s: ServerObserved): boolean => (target === undefined ? s.status === 'running' || s.status === 'stopped' : s.status === target);
    let instance = await this.required(externalId, doing, options);
    if (done(instance)) return instance;
    await followAction(
      async () => {
        instance = await this.required(externalId, doing, options);
        if (instance.status === 'error') return { done: true, failed: `instance ${externalId} is in error` };
        return { done: done(instance) };
      },
      { what: `contabo: ${doing}: waiting for the instance`, intervalMs: this.pollMs, signal: options.signal },
    );
    return instance;
  }
}
