/**
 * @module The sandbox vendor's runtime: databases and apps hosted on sandbox servers, through
 * the sandbox API, found by id or by the client token derived from the resource's uid.
 */
import type {
  AppDesired, AppObserved, DatabaseConnection, DatabaseDesired, DatabaseObserved, ExternalClient, ExternalRef,
  RuntimeDriver,
} from '../contract.js';
import type { SandboxHttpClient } from './http-client.js';
import { appConfigBody, databaseCreateBody, readApp, readConnection, readDatabase } from './wire-format.js';
import { WireReader } from './wire-reader.js';

const id = encodeURIComponent;

/** What differs between /v1/databases and /v1/apps: the path, the singular and plural keys, the reader. */
interface HostedKind<Observed> {
  collection: 'databases' | 'apps';
  singular: 'database' | 'app';
  read(r: WireReader): Observed;
}

/** observe and delete, the same for every hosted kind. */
class HostedThings<Observed> {
  constructor(
    protected readonly client: SandboxHttpClient,
    protected readonly kind: HostedKind<Observed>,
  ) {}

  protected async getOne(externalId: string, doing: string): Promise<WireReader | null> {
    const path = `/v1/${this.kind.collection}/${id(externalId)}`;
    const answer = await this.client.call({ method: 'GET', path, doing, accept: [404] });
    return answer.status === 404 ? null : WireReader.of(answer.body, `sandbox: ${doing}`).object(this.kind.singular);
  }

  async observe(ref: ExternalRef): Promise<Observed | null> {
    if (ref.externalId) {
      const found = await this.getOne(ref.externalId, `observe ${this.kind.singular} ${ref.externalId}`);
      if (found) return this.kind.read(found);
    }
    const doing = `find ${this.kind.singular} by key "${ref.key}"`;
    const answer = await this.client.call({ method: 'GET', path: `/v1/${this.kind.collection}?client_token=${id(ref.key)}`, doing });
    const [first] = WireReader.of(answer.body, `sandbox: ${doing}`).array(this.kind.collection);
    return first ? this.kind.read(first) : null;
  }

  protected async send(method: 'POST' | 'PATCH', path: string, body: unknown, doing: string): Promise<Observed> {
    const answer = await this.client.call({ method, path, body, doing });
    return this.kind.read(WireReader.of(answer.body, `sandbox: ${doing}`).object(this.kind.singular));
  }

  async delete(externalId: string): Promise<void> {
    const path = `/v1/${this.kind.collection}/${id(externalId)}`;
    await this.client.call({ method: 'DELETE', path, doing: `delete ${this.kind.singular} ${externalId}`, accept: [404] });
  }
}

class SandboxDatabases extends HostedThings<DatabaseObserved> implements ExternalClient<DatabaseDesired, DatabaseObserved> {
  constructor(client: SandboxHttpClient) {
    super(client, { collection: 'databases', singular: 'database', read: readDatabase });
  }

  create(key: string, desired: DatabaseDesired): Promise<DatabaseObserved> {
    return this.send('POST', '/v1/databases', databaseCreateBody(key, desired), `create database "${desired.name}"`);
  }

  update(externalId: string, desired: DatabaseDesired): Promise<DatabaseObserved> {
    const doing = `update database "${desired.name}" (${externalId})`;
    return this.send('PATCH', `/v1/databases/${id(externalId)}`, { storage_gb: desired.storageGb, version: desired.version }, doing);
  }

  async connection(externalId: string): Promise<DatabaseConnection> {
    const doing = `read connection of database ${externalId}`;
    const answer = await this.client.call({ method: 'GET', path: `/v1/databases/${id(externalId)}`, doing });
    return readConnection(WireReader.of(answer.body, `sandbox: ${doing}`).object('database').object('connection'));
  }
}

class SandboxApps extends HostedThings<AppObserved> implements ExternalClient<AppDesired, AppObserved> {
  constructor(client: SandboxHttpClient) {
    super(client, { collection: 'apps', singular: 'app', read: readApp });
  }

  create(key: string, desired: AppDesired): Promise<AppObserved> {
    const body = { name: desired.name, server_id: desired.placement.serverExternalId, ...appConfigBody(desired), client_token: key };
    return this.send('POST', '/v1/apps', body, `create app "${desired.name}"`);
  }

  update(externalId: string, desired: AppDesired): Promise<AppObserved> {
    return this.send('PATCH', `/v1/apps/${id(externalId)}`, appConfigBody(desired), `deploy app "${desired.name}" (${externalId})`);
  }
}

export class SandboxRuntimeDriver implements RuntimeDriver {
  readonly vendor = 'sandbox';
  readonly databases: SandboxDatabases;
  readonly apps: SandboxApps;
  private closing: Promise<void> | undefined;

  /** `release` is called once on close (e.g. to let go of an in-process sandbox cloud). */
  constructor(client: SandboxHttpClient, private readonly release: () => Promise<void> = () => Promise.resolve()) {
    this.databases = new SandboxDatabases(client);
    this.apps = new SandboxApps(client);
  }

  close(): Promise<void> {
    this.closing ??= this.release();
    return this.closing;
  }
}
