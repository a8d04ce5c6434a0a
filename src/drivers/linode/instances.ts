/**
 * @module Linodes as cairn's ExternalClient. Linode takes no client token, so every Linode
 * carries its idempotency key as a tag (key-tag.ts), and a create first looks for a Linode with
 * that tag (Linode's `X-Filter` header): a create cut short by a crash is found, never made
 * twice. The name becomes a valid label (label.ts); the root password Linode requires is new
 * and random per create and kept nowhere (root-password.ts); user data goes base64 in
 * `metadata.user_data`. A resize is `post-resize-linode-instance`, made on the Linode itself
 * (Linode shuts it down, moves it and boots it again); cairn waits for the Linode to settle
 * (running or offline) before and after it, and after a power action. A region or type Linode
 * lacks, or an image name cairn cannot map, is refused before anything is sent.
 */
import type { CallOptions, ExternalClient, ExternalRef, PowerAction, ServerDesired, ServerObserved } from '../contract.js';
import { followAction } from '../kit/follow-action.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { MANAGED_TAG, tagForKey } from './key-tag.js';
import { linodeLabel } from './label.js';
import { newRootPassword } from './root-password.js';
import { readInstance } from './wire-format.js';

/** Linode ids are integers. */
const LINODE_ID = /^[1-9]\d*$/;

/** Linode's power operations, by cairn's power action. */
const POWER_PATH: Record<PowerAction, string> = { power_on: 'boot', power_off: 'shutdown', reboot: 'reboot' };

export class LinodeInstances implements ExternalClient<ServerDesired, ServerObserved> {
  constructor(
    private readonly client: VendorHttpClient,
    private readonly pollMs: number,
    /** Refuses a region or type Linode does not offer, before anything is sent. */
    private readonly checkPlacement: (region: string, size: string) => Promise<void>,
    /** Linode's image id for a cairn image name; throws on one it cannot map. */
    private readonly resolveImage: (image: string) => string,
  ) {}

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<ServerObserved | null> {
    if (ref.externalId && LINODE_ID.test(ref.externalId)) {
      const found = await this.get(ref.externalId, `observe Linode ${ref.externalId}`, options, ref.key);
      if (found) return found;
    }
    return ref.key === '' ? null : this.findByKey(ref.key, options);
  }

  async get(externalId: string, doing: string, options: CallOptions = {}, key?: string): Promise<ServerObserved | null> {
    const answer = await this.client.call({ method: 'GET', path: `/linode/instances/${externalId}`, doing, accept: [404], signal: options.signal });
    return answer.status === 404 ? null : readInstance(WireReader.of(answer.body, `linode: ${doing}`), key);
  }

  private async findByKey(key: string, options: CallOptions): Promise<ServerObserved | null> {
    const tag = tagForKey(key);
    const doing = `find the Linode tagged ${tag}`;
    const answer = await this.client.call({ method: 'GET', path: '/linode/instances', headers: { 'x-filter': JSON.stringify({ tags: tag }) }, doing, signal: options.signal });
    const [first] = WireReader.of(answer.body, `linode: ${doing}`).array('data');
    return first ? readInstance(first, key) : null;
  }

  async create(key: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const existing = await this.findByKey(key, options);
    if (existing) return existing;
    const image = this.resolveImage(desired.image);
    await this.checkPlacement(desired.region, desired.size);
    const label = linodeLabel(desired.name);
    const doing = `create Linode "${label}"`;
    const userData = desired.userData ?? '';
    const body = {
      label, region: desired.region, type: desired.size, image, root_pass: newRootPassword(), tags: [tagForKey(key), MANAGED_TAG],
      ...(userData === '' ? {} : { metadata: { user_data: Buffer.from(userData, 'utf8').toString('base64') } }),
    };
    const answer = await this.client.call({ method: 'POST', path: '/linode/instances', body, doing, signal: options.signal });
    return readInstance(WireReader.of(answer.body, `linode: ${doing}`), key);
  }

  async update(externalId: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `resize Linode "${desired.name}" (${externalId}) to ${desired.size}`;
    const current = await this.settled(externalId, doing, options);
    if (current.size === desired.size) return current;
    await this.checkPlacement(current.region, desired.size);
    await this.client.call({ method: 'POST', path: `/linode/instances/${externalId}/resize`, body: { type: desired.size }, doing, signal: options.signal });
    return this.settled(externalId, doing, options);
  }

  async power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `${action} Linode ${externalId}`;
    await this.settled(externalId, doing, options);
    await this.client.call({ method: 'POST', path: `/linode/instances/${externalId}/${POWER_PATH[action]}`, doing, signal: options.signal });
    return this.settled(externalId, doing, options);
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    if (!LINODE_ID.test(externalId)) return;
    await this.client.call({ method: 'DELETE', path: `/linode/instances/${externalId}`, doing: `delete Linode ${externalId}`, accept: [404], signal: options.signal });
  }

  async required(externalId: string, doing: string, options: CallOptions = {}): Promise<ServerObserved> {
    const linode = await this.get(externalId, doing, options);
    if (!linode) throw new Error(`linode: ${doing}: Linode ${externalId} no longer exists`);
    return linode;
  }

  /** The Linode once it is running or stopped (a create, boot, shutdown or resize may be under way). */
  private async settled(externalId: string, doing: string, options: CallOptions): Promise<ServerObserved> {
    let linode = await this.required(externalId, doing, options);
    if (linode.status === 'running' || linode.status === 'stopped') return linode;
    await followAction(
      async () => {
        linode = await this.required(externalId, doing, options);
        return { done: linode.status === 'running' || linode.status === 'stopped' };
      },
      { what: `linode: ${doing}: waiting for the Linode to settle`, intervalMs: this.pollMs, signal: options.signal },
    );
    return linode;
  }
}
