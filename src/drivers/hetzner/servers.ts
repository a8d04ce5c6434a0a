/**
 * @module Hetzner Cloud servers as cairn's ExternalClient. Hetzner takes no client token, so
 * every server carries its idempotency key as the label `cairn-key`, and a create first looks
 * for a server with that label: a create cut short by a crash is found, never made twice.
 * A resize is Hetzner's change-type action, which needs the server off: power off, change
 * type, power on again if it was running, each action followed to its end. A region or size
 * Hetzner lacks is refused before anything is sent (the server is not powered off for nothing).
 */
import type { CallOptions, ExternalClient, ExternalRef, ServerDesired, ServerObserved } from '../contract.js';
import { followAction } from '../kit/follow-action.js';
import { KEY_LABEL, ownershipLabels } from '../kit/ownership-labels.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { readServer } from './wire-format.js';

const id = encodeURIComponent;

export class HetznerServers implements ExternalClient<ServerDesired, ServerObserved> {
  constructor(
    private readonly client: VendorHttpClient,
    private readonly actionPollMs: number,
    /** Refuses a region or size Hetzner does not offer, before anything is sent. */
    private readonly checkPlacement: (region: string, size: string) => Promise<void>,
  ) {}

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<ServerObserved | null> {
    if (ref.externalId && /^\d+$/.test(ref.externalId)) {
      const found = await this.get(ref.externalId, `observe server ${ref.externalId}`, options);
      if (found) return found;
    }
    return ref.key === '' ? null : this.findByKey(ref.key, options);
  }

  async get(externalId: string, doing: string, options: CallOptions = {}): Promise<ServerObserved | null> {
    const answer = await this.client.call({ method: 'GET', path: `/servers/${id(externalId)}`, doing, accept: [404], signal: options.signal });
    return answer.status === 404 ? null : readServer(WireReader.of(answer.body, `hetzner: ${doing}`).object('server'));
  }

  private async findByKey(key: string, options: CallOptions): Promise<ServerObserved | null> {
    const doing = `find server labelled ${KEY_LABEL}=${key}`;
    const answer = await this.client.call({ method: 'GET', path: '/servers', query: { label_selector: `${KEY_LABEL}==${key}`, per_page: 2 }, doing, signal: options.signal });
    const [first] = WireReader.of(answer.body, `hetzner: ${doing}`).array('servers');
    return first ? readServer(first) : null;
  }

  async create(key: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const existing = await this.findByKey(key, options);
    if (existing) return existing;
    await this.checkPlacement(desired.region, desired.size);
    const doing = `create server "${desired.name}"`;
    const body = { name: desired.name, server_type: desired.size, image: desired.image, location: desired.region, labels: ownershipLabels(key), start_after_create: true, ...(desired.userData ? { user_data: desired.userData } : {}) };
    const answer = await this.client.call({ method: 'POST', path: '/servers', body, doing, signal: options.signal });
    return readServer(WireReader.of(answer.body, `hetzner: ${doing}`).object('server'));
  }

  async update(externalId: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `resize server "${desired.name}" (${externalId}) to ${desired.size}`;
    const current = await this.settled(externalId, doing, options);
    if (current.size === desired.size) return current;
    await this.checkPlacement(current.region, desired.size);
    const wasRunning = current.status !== 'stopped';
    if (wasRunning) await this.action(externalId, 'poweroff', undefined, `${doing}: power off first`, options);
    await this.action(externalId, 'change_type', { server_type: desired.size, upgrade_disk: false }, doing, options);
    if (wasRunning) await this.client.call({ method: 'POST', path: `/servers/${id(externalId)}/actions/poweron`, doing: `${doing}: power on again`, signal: options.signal });
    return this.required(externalId, doing, options);
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    await this.client.call({ method: 'DELETE', path: `/servers/${id(externalId)}`, doing: `delete server ${externalId}`, accept: [404], signal: options.signal });
  }

  async required(externalId: string, doing: string, options: CallOptions = {}): Promise<ServerObserved> {
    const server = await this.get(externalId, doing, options);
    if (!server) throw new Error(`hetzner: ${doing}: server ${externalId} no longer exists`);
    return server;
  }

  /** The server once it is running or off (a create or power action may still be under way). */
  private async settled(externalId: string, doing: string, options: CallOptions): Promise<ServerObserved> {
    let server = await this.required(externalId, doing, options);
    await followAction(
      async () => {
        server = await this.required(externalId, doing, options);
        return { done: server.status === 'running' || server.status === 'stopped' };
      },
      { what: `hetzner: ${doing}: waiting for the server to settle`, intervalMs: this.actionPollMs, signal: options.signal },
    );
    return server;
  }

  /** Starts a server action and follows it until Hetzner reports it done. */
  async action(externalId: string, name: string, body: unknown, doing: string, options: CallOptions): Promise<void> {
    const answer = await this.client.call({ method: 'POST', path: `/servers/${id(externalId)}/actions/${name}`, ...(body === undefined ? {} : { body }), doing, signal: options.signal });
    const actionId = WireReader.of(answer.body, `hetzner: ${doing}`).object('action').number('id');
    await followAction(
      async () => {
        const read = await this.client.call({ method: 'GET', path: `/actions/${actionId}`, doing: `${doing}: follow action ${actionId}`, signal: options.signal });
        const action = WireReader.of(read.body, `hetzner: ${doing}`).object('action');
        const status = action.oneOf('status', ['running', 'success', 'error'] as const);
        if (status === 'running') return { done: false };
        return status === 'success' ? { done: true } : { done: true, failed: action.raw('error') === null ? 'no reason given' : action.object('error').string('message') };
      },
      { what: `hetzner: ${doing}`, intervalMs: this.actionPollMs, signal: options.signal },
    );
  }
}
