/**
 * @module The sandbox vendor's cloud driver: servers through the sandbox API, found by id or,
 * after a crash, by the client token the reconciler derived from the resource's uid.
 */
import type {
  CallOptions, CloudDriver, CredentialTest, ExternalClient, ExternalRef, PowerAction, Region, ServerDesired, ServerMetrics,
  ServerObserved, Size,
} from '../contract.js';
import { VendorAuthError, VendorRejectedError } from '../errors.js';
import type { SandboxHttpClient } from './http-client.js';
import { readMetrics, readRegion, readServer, readSize } from './wire-format.js';
import { WireReader } from '../kit/wire-reader.js';

const id = encodeURIComponent;

class SandboxServers implements ExternalClient<ServerDesired, ServerObserved> {
  constructor(private readonly client: SandboxHttpClient) {}

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<ServerObserved | null> {
    if (ref.externalId) {
      const found = await this.getById(ref.externalId, `observe server ${ref.externalId}`, options.signal);
      if (found) return found;
    }
    return this.findByKey(ref.key, options.signal);
  }

  async getById(externalId: string, doing: string, signal?: AbortSignal): Promise<ServerObserved | null> {
    const answer = await this.client.call({ method: 'GET', path: `/v1/servers/${id(externalId)}`, doing, accept: [404], signal });
    return answer.status === 404 ? null : readServer(WireReader.of(answer.body, `sandbox: ${doing}`).object('server'));
  }

  async findByKey(key: string, signal?: AbortSignal): Promise<ServerObserved | null> {
    const doing = `find server by key "${key}"`;
    const answer = await this.client.call({ method: 'GET', path: `/v1/servers?client_token=${id(key)}`, doing, signal });
    const [first] = WireReader.of(answer.body, `sandbox: ${doing}`).array('servers');
    return first ? readServer(first) : null;
  }

  async create(key: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `create server "${desired.name}"`;
    const body = { name: desired.name, region: desired.region, size: desired.size, image: desired.image, client_token: key };
    const answer = await this.client.call({ method: 'POST', path: '/v1/servers', body, doing, signal: options.signal });
    return readServer(WireReader.of(answer.body, `sandbox: ${doing}`).object('server'));
  }

  async update(externalId: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `resize server "${desired.name}" (${externalId}) to ${desired.size}`;
    const answer = await this.client.call({ method: 'PATCH', path: `/v1/servers/${id(externalId)}`, body: { size: desired.size }, doing, signal: options.signal });
    return readServer(WireReader.of(answer.body, `sandbox: ${doing}`).object('server'));
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    await this.client.call({ method: 'DELETE', path: `/v1/servers/${id(externalId)}`, doing: `delete server ${externalId}`, accept: [404], signal: options.signal });
  }
}

export class SandboxCloudDriver implements CloudDriver {
  readonly vendor = 'sandbox';
  readonly servers: SandboxServers;
  private closing: Promise<void> | undefined;

  /** `release` is called once on close (e.g. to let go of an in-process sandbox cloud). */
  constructor(
    private readonly client: SandboxHttpClient,
    private readonly describeEndpoint: string,
    private readonly release: () => Promise<void> = () => Promise.resolve(),
  ) {
    this.servers = new SandboxServers(client);
  }

  async power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `${action} server ${externalId}`;
    await this.client.call({ method: 'POST', path: `/v1/servers/${id(externalId)}/actions`, body: { type: action }, doing, signal: options.signal });
    const server = await this.servers.getById(externalId, doing, options.signal);
    if (!server) {
      throw new VendorRejectedError(`sandbox: ${doing}: the server disappeared right after the action`, { status: 404 });
    }
    return server;
  }

  async regions(options: CallOptions = {}): Promise<Region[]> {
    const answer = await this.client.call({ method: 'GET', path: '/v1/regions', doing: 'list regions', signal: options.signal });
    return WireReader.of(answer.body, 'sandbox: list regions').array('regions').map(readRegion);
  }

  async sizes(options: CallOptions = {}): Promise<Size[]> {
    const answer = await this.client.call({ method: 'GET', path: '/v1/sizes', doing: 'list sizes', signal: options.signal });
    return WireReader.of(answer.body, 'sandbox: list sizes').array('sizes').map(readSize);
  }

  async testCredentials(options: CallOptions = {}): Promise<CredentialTest> {
    const doing = 'test credentials';
    try {
      const answer = await this.client.call({ method: 'GET', path: '/v1/account', doing, signal: options.signal });
      const account = WireReader.of(answer.body, `sandbox: ${doing}`).object('account');
      const status = account.string('status');
      if (status !== 'active') return { ok: false, message: `sandbox: the account at ${this.describeEndpoint} is ${status}, not active` };
      return { ok: true, message: `sandbox: account active at ${this.describeEndpoint} (a simulated cloud)` };
    } catch (error) {
      // Refused credentials, or an endpoint cairn will not call (the outbound guard): the provider is invalid.
      if (error instanceof VendorAuthError || error instanceof VendorRejectedError) return { ok: false, message: error.message };
      throw error;
    }
  }

  async metrics(externalId: string, options: CallOptions = {}): Promise<ServerMetrics> {
    const doing = `read metrics of server ${externalId}`;
    const answer = await this.client.call({ method: 'GET', path: `/v1/servers/${id(externalId)}/metrics`, doing, signal: options.signal });
    return readMetrics(WireReader.of(answer.body, `sandbox: ${doing}`));
  }

  close(): Promise<void> {
    this.closing ??= this.release();
    return this.closing;
  }
}
