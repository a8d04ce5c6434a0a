/**
 * @module IONOS servers as cairn's ExternalClient. A server's id in cairn is
 * `<data center id>/<server id>`; servers go in cairn's data center of their location
 * (datacenters.ts). IONOS takes no client token, so the idempotency key travels in the server's
 * name (server-name.ts), and a create first looks for a server of that name in cairn's data
 * centers: a create cut short by a crash is found, never made twice. A create sends the boot
 * volume with it (image alias, size, `userData` base64, a random `imagePassword` kept nowhere)
 * and a NIC on the public LAN; every write is followed to its end through its request status
 * (requests.ts). A resize changes cores and RAM in place (`datacentersServersPatch`); a delete
 * takes the boot volume with it (`deleteVolumes=true`), and a server already gone is deleted.
 */
import type { CallOptions, ExternalClient, ExternalRef, PowerAction, ServerDesired, ServerObserved } from '../contract.js';
import { VendorRejectedError } from '../errors.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import type { IonosDatacenters } from './datacenters.js';
import { newImagePassword } from './image-password.js';
import { followRequest } from './requests.js';
import { readServerName, serverNameFor } from './server-name.js';
import { ionosImage, shapeOf } from './shapes.js';
import { readServer } from './wire-format.js';

/** IONOS ids are UUIDs. */
const ID = /^[0-9a-f-]{36}$/i;

/** IONOS's power operations, by cairn's power action. */
const POWER_PATH: Record<PowerAction, string> = { power_on: 'start', power_off: 'stop', reboot: 'reboot' };

/** The depth at which a server answers with its volumes' and NICs' properties. */
const DEPTH = 3;

export class IonosServers implements ExternalClient<ServerDesired, ServerObserved> {
  constructor(
    private readonly client: VendorHttpClient,
    private readonly datacenters: IonosDatacenters,
    private readonly pollMs: number,
    /** Refuses a location or size IONOS does not offer, before anything is sent. */
    private readonly checkPlacement: (region: string, size: string) => Promise<void>,
  ) {}

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<ServerObserved | null> {
    if (ref.externalId) {
      const found = await this.get(ref.externalId, `observe server ${ref.externalId}`, options);
      if (found) return found;
    }
    return ref.key === '' ? null : this.findByKey(ref.key, options);
  }

  async get(externalId: string, doing: string, options: CallOptions = {}): Promise<ServerObserved | null> {
    const ids = splitId(externalId);
    if (!ids) return null;
    const location = await this.datacenters.locationOf(ids.dc, options);
    if (location === undefined) return null;
    const answer = await this.client.call({ method: 'GET', path: serverPath(ids), query: { depth: DEPTH }, doing, accept: [404], signal: options.signal });
    return answer.status === 404 ? null : readServer(WireReader.of(answer.body, `ionos: ${doing}`), ids.dc, location);
  }

  private async findByKey(key: string, options: CallOptions): Promise<ServerObserved | null> {
    for (const dc of await this.datacenters.all(options, true)) {
      const servers = await this.datacenters.list(`/datacenters/${encodeURIComponent(dc.id)}/servers`, DEPTH, `find the server of key ${key}`, options.signal);
      const found = servers.find((s) => readServerName(s.object('properties').string('name')).key === key);
      if (found) return readServer(found, dc.id, dc.location);
    }
    return null;
  }

  async create(key: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const existing = await this.findByKey(key, options);
    if (existing) return existing;
    const image = ionosImage(desired.image);
    await this.checkPlacement(desired.region, desired.size);
    const shape = shapeOf(desired.size);
    if (!shape) throw new VendorRejectedError(`ionos: size "${desired.size}" is not one of cairn's IONOS sizes`, { field: 'size' });
    const { datacenter, lan } = await this.datacenters.ensure(desired.region, options);
    const name = serverNameFor(desired.name, key);
    const userData = desired.userData ?? '';
    const volume = {
      name: `${desired.name}-boot`, type: 'SSD Standard', size: shape.diskGb, ...image, imagePassword: newImagePassword(),
      ...(userData === '' ? {} : { userData: Buffer.from(userData, 'utf8').toString('base64') }),
    };
    const body = {
      properties: { name, cores: shape.cores, ram: shape.ramMb, type: 'ENTERPRISE' },
      entities: {
        volumes: { items: [{ properties: volume }] },
        nics: { items: [{ properties: { name: 'public', lan, dhcp: true } }] },
      },
    };
    const doing = `create server "${desired.name}"`;
    const answer = await this.client.call({ method: 'POST', path: `/datacenters/${encodeURIComponent(datacenter.id)}/servers`, body, doing, signal: options.signal });
    const id = `${datacenter.id}/${WireReader.of(answer.body, `ionos: ${doing}`).string('id')}`;
    await followRequest(this.client, answer, doing, this.pollMs, options.signal);
    return this.required(id, doing, options);
  }

  async update(externalId: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `resize server "${desired.name}" (${externalId}) to ${desired.size}`;
    const current = await this.required(externalId, doing, options);
    if (current.size === desired.size) return current;
    await this.checkPlacement(current.region, desired.size);
    const shape = shapeOf(desired.size);
    if (!shape) throw new VendorRejectedError(`ionos: size "${desired.size}" is not one of cairn's IONOS sizes`, { field: 'size' });
    const answer = await this.client.call({ method: 'PATCH', path: serverPath(splitId(externalId)!), body: { cores: shape.cores, ram: shape.ramMb }, doing, signal: options.signal });
    await followRequest(this.client, answer, doing, this.pollMs, options.signal);
    return this.required(externalId, doing, options);
  }

  async power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `${action} server ${externalId}`;
    const ids = splitId(externalId);
    if (!ids) throw new VendorRejectedError(`ionos: ${doing}: "${externalId}" is not an IONOS server id (<data center id>/<server id>)`, { field: 'id' });
    const answer = await this.client.call({ method: 'POST', path: `${serverPath(ids)}/${POWER_PATH[action]}`, doing, signal: options.signal });
    await followRequest(this.client, answer, doing, this.pollMs, options.signal);
    return this.required(externalId, doing, options);
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    const ids = splitId(externalId);
    if (!ids) return;
    const doing = `delete server ${externalId}`;
    const answer = await this.client.call({ method: 'DELETE', path: serverPath(ids), query: { deleteVolumes: true }, doing, accept: [404], signal: options.signal });
    if (answer.status !== 404) await followRequest(this.client, answer, doing, this.pollMs, options.signal);
  }

  async required(externalId: string, doing: string, options: CallOptions = {}): Promise<ServerObserved> {
    const server = await this.get(externalId, doing, options);
    if (!server) throw new Error(`ionos: ${doing}: server ${externalId} no longer exists`);
    return server;
  }
}

function splitId(externalId: string): { dc: string; server: string } | undefined {
  const [dc, server, ...rest] = externalId.split('/');
  return dc !== undefined && server !== undefined && rest.length === 0 && ID.test(dc) && ID.test(server) ? { dc, server } : undefined;
}

function serverPath(ids: { dc: string; server: string }): string {
  return `/datacenters/${encodeURIComponent(ids.dc)}/servers/${encodeURIComponent(ids.server)}`;
}
