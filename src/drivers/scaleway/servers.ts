/**
 * @module Scaleway Instances as cairn's ExternalClient. Scaleway takes no client token, so every
 * server carries its idempotency key as a tag (key-tag.ts) and a create first looks for a server
 * with that tag in its zone: a create cut short is found, never made twice. A Scaleway server is
 * created stopped: cairn sets its cloud-init user data (`SetServerUserData`, text/plain) and then
 * boots it (`ServerAction poweron`); a create found stopped again after a lost answer is finished
 * the same way. Power actions, resize and delete are `ServerAction`s whose tasks the document
 * gives no way to read, so cairn follows the server's `state` until it settles. A resize changes
 * `commercial_type`, which Scaleway allows only on a stopped server: off, update, on again if it
 * was running. Delete is `terminate` (the server and its volumes; Scaleway allows it only on a
 * running server, so a stopped one is booted first), then waited out until the server is gone.
 */
import type { CallOptions, ExternalClient, ExternalRef, PowerAction, ServerDesired, ServerObserved } from '../contract.js';
import { VendorRejectedError } from '../errors.js';
import { followAction } from '../kit/follow-action.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { MANAGED_TAG, tagForKey } from './key-tag.js';
import { parseExternalId, readServer } from './wire-format.js';
import { ZONES } from './zones.js';

const enc = encodeURIComponent;

/** cairn's image names Scaleway spells differently (it takes an image UUID or a Marketplace label). */
const IMAGE_LABELS: Record<string, string> = {
  'debian-12': 'debian_bookworm', 'debian-11': 'debian_bullseye', 'ubuntu-22.04': 'ubuntu_jammy', 'ubuntu-24.04': 'ubuntu_noble',
};

/** The image label (or UUID) Scaleway is sent for cairn's `image`. */
export function scalewayImage(image: string): string {
  return IMAGE_LABELS[image] ?? image;
}

/** Scaleway's actions by cairn's power action. */
const ACTION: Record<PowerAction, string> = { power_on: 'poweron', power_off: 'poweroff', reboot: 'reboot' };

/** The key Scaleway keeps cloud-init's user data under. */
const CLOUD_INIT_KEY = 'cloud-init';

export class ScalewayServers implements ExternalClient<ServerDesired, ServerObserved> {
  constructor(
    private readonly client: VendorHttpClient,
    private readonly projectId: string,
    private readonly pollMs: number,
    /** Refuses a zone or commercial type Scaleway does not offer, before anything is sent. */
    private readonly checkPlacement: (region: string, size: string) => Promise<void>,
  ) {}

  private path(zone: string, rest = ''): string {
    return `/instance/v1/zones/${enc(zone)}/servers${rest}`;
  }

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<ServerObserved | null> {
    if (ref.externalId) {
      const found = await this.get(ref.externalId, `observe server ${ref.externalId}`, options);
      if (found) return found;
    }
    if (ref.key === '') return null;
    // Scaleway lists servers zone by zone, and a key alone does not say where: every zone is asked
    // (a delete or a create after a lost answer must find it wherever it is).
    for (const zone of ZONES) {
      const found = await this.findByKey(zone, ref.key, options);
      if (found) return found;
    }
    return null;
  }

  /** The server, or null when Scaleway no longer has it (or the id is none of cairn's). */
  async get(externalId: string, doing: string, options: CallOptions = {}): Promise<ServerObserved | null> {
    const parsed = parseExternalId(externalId);
    if (!parsed) return null;
    const answer = await this.client.call({ method: 'GET', path: this.path(parsed.zone, `/${enc(parsed.id)}`), doing, accept: [404], signal: options.signal });
    return answer.status === 404 ? null : readServer(WireReader.of(answer.body, `scaleway: ${doing}`).object('server'));
  }

  private async findByKey(zone: string, key: string, options: CallOptions): Promise<ServerObserved | null> {
    const tag = tagForKey(key);
    const doing = `find server tagged ${tag} in ${zone}`;
    const answer = await this.client.call({ method: 'GET', path: this.path(zone), query: { tags: tag, project: this.projectId, per_page: 2 }, doing, signal: options.signal });
    const [first] = WireReader.of(answer.body, `scaleway: ${doing}`).array('servers');
    return first ? readServer(first) : null;
  }

  async create(key: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `create server "${desired.name}"`;
    // The zone is part of every path: one Scaleway lacks is refused before anything is sent.
    await this.checkPlacement(desired.region, desired.size);
    const existing = await this.findByKey(desired.region, key, options);
    // Found stopped: a create whose answer was lost before its user data and first boot.
    if (existing) return existing.status === 'stopped' ? this.boot(existing.id, desired, doing, options) : existing;
    const body = { name: desired.name, commercial_type: desired.size, image: scalewayImage(desired.image), project: this.projectId, tags: [tagForKey(key), MANAGED_TAG], dynamic_ip_required: true };
    const answer = await this.client.call({ method: 'POST', path: this.path(desired.region), body, doing, signal: options.signal });
    const created = readServer(WireReader.of(answer.body, `scaleway: ${doing}`).object('server'));
    return this.boot(created.id, desired, doing, options);
  }

  /** Gives a stopped new server its user data, then powers it on (without waiting for it to run). */
  private async boot(externalId: string, desired: ServerDesired, doing: string, options: CallOptions): Promise<ServerObserved> {
    const { zone, id } = this.parsed(externalId, doing);
    if (desired.userData !== undefined && desired.userData !== null && desired.userData !== '') {
      await this.client.call({
        method: 'PATCH', path: this.path(zone, `/${enc(id)}/user_data/${CLOUD_INIT_KEY}`), text: { contentType: 'text/plain', body: desired.userData },
        doing: `${doing}: set its cloud-init user data`, signal: options.signal,
      });
    }
    await this.action(externalId, 'poweron', doing, options);
    return this.required(externalId, doing, options);
  }

  async update(externalId: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `resize server "${desired.name}" (${externalId}) to ${desired.size}`;
    const current = await this.settled(externalId, doing, options);
    if (current.size === desired.size) return current;
    await this.checkPlacement(current.region, desired.size);
    const wasRunning = current.status === 'running';
    if (wasRunning) await this.actAndWait(externalId, 'poweroff', 'stopped', doing, options);
    const { zone, id } = this.parsed(externalId, doing);
    await this.client.call({ method: 'PATCH', path: this.path(zone, `/${enc(id)}`), body: { commercial_type: desired.size }, doing, signal: options.signal });
    if (wasRunning) return this.actAndWait(externalId, 'poweron', 'running', doing, options);
    return this.required(externalId, doing, options);
  }

  async power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `${action} server ${externalId}`;
    const current = await this.settled(externalId, doing, options);
    if (action === 'power_on' && current.status === 'running') return current;
    if (action === 'power_off' && current.status === 'stopped') return current;
    if (action === 'reboot' && current.status === 'stopped') return this.actAndWait(externalId, 'poweron', 'running', doing, options);
    return this.actAndWait(externalId, ACTION[action], action === 'power_off' ? 'stopped' : 'running', doing, options);
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    const doing = `delete server ${externalId}`;
    if (!parseExternalId(externalId)) return;
    const current = await this.settledOrGone(externalId, doing, options);
    if (!current) return;
    if (current.status === 'stopped') await this.actAndWait(externalId, 'poweron', 'running', `${doing} (terminate needs it running)`, options);
    await this.action(externalId, 'terminate', doing, options);
    await followAction(async () => ({ done: (await this.get(externalId, doing, options)) === null }), {
      what: `scaleway: ${doing}: waiting for the server to be gone`, intervalMs: this.pollMs, signal: options.signal,
    });
  }

  async required(externalId: string, doing: string, options: CallOptions = {}): Promise<ServerObserved> {
    const server = await this.get(externalId, doing, options);
    if (!server) throw new VendorRejectedError(`scaleway: ${doing}: server ${externalId} no longer exists`);
    return server;
  }

  private parsed(externalId: string, doing: string): { zone: string; id: string } {
    const parsed = parseExternalId(externalId);
    if (!parsed) throw new VendorRejectedError(`scaleway: ${doing}: "${externalId}" is not a Scaleway server id (<zone>/<uuid>)`);
    return parsed;
  }

  /** Sends a `ServerAction`; a 404 means the server is gone (a terminate already done). */
  private async action(externalId: string, action: string, doing: string, options: CallOptions): Promise<void> {
    const { zone, id } = this.parsed(externalId, doing);
    const answer = await this.client.call({ method: 'POST', path: this.path(zone, `/${enc(id)}/action`), body: { action }, doing: `${doing}: ${action}`, accept: action === 'terminate' ? [404] : [], signal: options.signal });
    if (answer.status !== 404) WireReader.of(answer.body, `scaleway: ${doing}: ${action}`).object('task');
  }

  private async actAndWait(externalId: string, action: string, until: 'running' | 'stopped', doing: string, options: CallOptions): Promise<ServerObserved> {
    await this.action(externalId, action, doing, options);
    let server = await this.required(externalId, doing, options);
    await followAction(
      async () => {
        server = await this.required(externalId, doing, options);
        if (server.status === 'error') return { done: true, failed: `the server is ${server.status} (Scaleway locked it?)` };
        return { done: server.status === until };
      },
      { what: `scaleway: ${doing}: ${action}`, intervalMs: this.pollMs, signal: options.signal },
    );
    return server;
  }

  /** The server once it is running or stopped (an action may still be under way). */
  private async settled(externalId: string, doing: string, options: CallOptions): Promise<ServerObserved> {
    const server = await this.settledOrGone(externalId, doing, options);
    if (!server) throw new VendorRejectedError(`scaleway: ${doing}: server ${externalId} no longer exists`);
    return server;
  }

  private async settledOrGone(externalId: string, doing: string, options: CallOptions): Promise<ServerObserved | null> {
    let server = await this.get(externalId, doing, options);
    const still = (s: ServerObserved | null): boolean => s !== null && (s.status === 'starting' || s.status === 'stopping');
    if (!still(server)) return server;
    await followAction(
      async () => {
        server = await this.get(externalId, doing, options);
        return { done: !still(server) };
      },
      { what: `scaleway: ${doing}: waiting for the server to settle`, intervalMs: this.pollMs, signal: options.signal },
    );
    return server;
  }
}
