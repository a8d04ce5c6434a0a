/**
 * @module DigitalOcean droplets as cairn's ExternalClient. DigitalOcean takes no client token, so
 * every droplet carries its idempotency key as a tag (key-tag.ts), and a create first looks for
 * a droplet with that tag: a create cut short by a crash is found, never made twice. A resize
 * is the `resize` droplet action, which needs the droplet off: power off, resize, power on again
 * if it was running, each action followed to its end. A region or size DigitalOcean lacks is
 * refused before anything is sent (the droplet is not powered off for nothing).
 */
import type { CallOptions, ExternalClient, ExternalRef, ServerDesired, ServerObserved } from '../contract.js';
import { followAction } from '../kit/follow-action.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { MANAGED_TAG, tagForKey } from './key-tag.js';
import { readDroplet } from './wire-format.js';

const id = encodeURIComponent;

/** The droplet action types cairn sends. */
export type DropletActionType = 'power_on' | 'power_off' | 'reboot' | 'resize';

export class DigitalOceanDroplets implements ExternalClient<ServerDesired, ServerObserved> {
  constructor(
    private readonly client: VendorHttpClient,
    private readonly actionPollMs: number,
    /** Refuses a region or size DigitalOcean does not offer, before anything is sent. */
    private readonly checkPlacement: (region: string, size: string) => Promise<void>,
  ) {}

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<ServerObserved | null> {
    if (ref.externalId && /^[1-9]\d*$/.test(ref.externalId)) {
      const found = await this.get(ref.externalId, `observe droplet ${ref.externalId}`, options);
      if (found) return found;
    }
    return ref.key === '' ? null : this.findByKey(ref.key, options);
  }

  async get(externalId: string, doing: string, options: CallOptions = {}): Promise<ServerObserved | null> {
    const answer = await this.client.call({ method: 'GET', path: `/droplets/${id(externalId)}`, doing, accept: [404], signal: options.signal });
    return answer.status === 404 ? null : readDroplet(WireReader.of(answer.body, `digitalocean: ${doing}`).object('droplet'));
  }

  private async findByKey(key: string, options: CallOptions): Promise<ServerObserved | null> {
    const tag = tagForKey(key);
    const doing = `find droplet tagged ${tag}`;
    const answer = await this.client.call({ method: 'GET', path: '/droplets', query: { tag_name: tag, per_page: 2 }, doing, signal: options.signal });
    const [first] = WireReader.of(answer.body, `digitalocean: ${doing}`).array('droplets');
    return first ? readDroplet(first) : null;
  }

  async create(key: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const existing = await this.findByKey(key, options);
    if (existing) return existing;
    await this.checkPlacement(desired.region, desired.size);
    const doing = `create droplet "${desired.name}"`;
    const body = { name: desired.name, region: desired.region, size: desired.size, image: desired.image, tags: [tagForKey(key), MANAGED_TAG], ...(desired.userData ? { user_data: desired.userData } : {}) };
    const answer = await this.client.call({ method: 'POST', path: '/droplets', body, doing, signal: options.signal });
    return readDroplet(WireReader.of(answer.body, `digitalocean: ${doing}`).object('droplet'));
  }

  async update(externalId: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `resize droplet "${desired.name}" (${externalId}) to ${desired.size}`;
    const current = await this.settled(externalId, doing, options);
    if (current.size === desired.size) return current;
    await this.checkPlacement(current.region, desired.size);
    const wasRunning = current.status !== 'stopped';
    if (wasRunning) await this.action(externalId, { type: 'power_off' }, `${doing}: power off first`, options);
    await this.action(externalId, { type: 'resize', size: desired.size, disk: false }, doing, options);
    if (wasRunning) await this.start(externalId, { type: 'power_on' }, `${doing}: power on again`, options);
    return this.required(externalId, doing, options);
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    await this.client.call({ method: 'DELETE', path: `/droplets/${id(externalId)}`, doing: `delete droplet ${externalId}`, accept: [404], signal: options.signal });
  }

  async required(externalId: string, doing: string, options: CallOptions = {}): Promise<ServerObserved> {
    const droplet = await this.get(externalId, doing, options);
    if (!droplet) throw new Error(`digitalocean: ${doing}: droplet ${externalId} no longer exists`);
    return droplet;
  }

  /** The droplet once it is running or off (a create or power action may still be under way). */
  private async settled(externalId: string, doing: string, options: CallOptions): Promise<ServerObserved> {
    let droplet = await this.required(externalId, doing, options);
    await followAction(
      async () => {
        droplet = await this.required(externalId, doing, options);
        return { done: droplet.status === 'running' || droplet.status === 'stopped' };
      },
      { what: `digitalocean: ${doing}: waiting for the droplet to settle`, intervalMs: this.actionPollMs, signal: options.signal },
    );
    return droplet;
  }

  /** Starts a droplet action; returns its id (DigitalOcean runs it in the background). */
  async start(externalId: string, body: { type: DropletActionType } & Record<string, unknown>, doing: string, options: CallOptions): Promise<number> {
    const answer = await this.client.call({ method: 'POST', path: `/droplets/${id(externalId)}/actions`, body, doing, signal: options.signal });
    return WireReader.of(answer.body, `digitalocean: ${doing}`).object('action').number('id');
  }

  /** Starts a droplet action and follows it until DigitalOcean reports it completed. */
  async action(externalId: string, body: { type: DropletActionType } & Record<string, unknown>, doing: string, options: CallOptions): Promise<void> {
    const actionId = await this.start(externalId, body, doing, options);
    await followAction(
      async () => {
        const read = await this.client.call({ method: 'GET', path: `/droplets/${id(externalId)}/actions/${actionId}`, doing: `${doing}: follow action ${actionId}`, signal: options.signal });
        const status = WireReader.of(read.body, `digitalocean: ${doing}`).object('action').oneOf('status', ['in-progress', 'completed', 'errored'] as const);
        if (status === 'in-progress') return { done: false };
        return status === 'completed' ? { done: true } : { done: true, failed: `action ${actionId} (${body.type}) errored` };
      },
      { what: `digitalocean: ${doing}`, intervalMs: this.actionPollMs, signal: options.signal },
    );
  }
}
