/**
 * @module What the sandbox runtime's databases and apps share: observe (by id, else by client
 * token), sending a create or change and reading the answer, and delete (gone counts as done).
 */
import type { CallOptions, ExternalRef } from '../contract.js';
import type { SandboxHttpClient } from './http-client.js';
import { WireReader } from '../kit/wire-reader.js';

/** A value as one URL path segment or query value. */
export const segment = encodeURIComponent;

/** What differs between /v1/databases and /v1/apps: the path, the singular and plural keys, the reader. */
export interface HostedKind<Observed> {
  collection: 'databases' | 'apps';
  singular: 'database' | 'app';
  read(r: WireReader): Observed;
}

export class HostedThings<Observed> {
  constructor(
    protected readonly client: SandboxHttpClient,
    protected readonly kind: HostedKind<Observed>,
  ) {}

  protected async getOne(externalId: string, doing: string, signal?: AbortSignal): Promise<WireReader | null> {
    const path = `/v1/${this.kind.collection}/${segment(externalId)}`;
    const answer = await this.client.call({ method: 'GET', path, doing, accept: [404], signal });
    return answer.status === 404 ? null : WireReader.of(answer.body, `sandbox: ${doing}`).object(this.kind.singular);
  }

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<Observed | null> {
    if (ref.externalId) {
      const found = await this.getOne(ref.externalId, `observe ${this.kind.singular} ${ref.externalId}`, options.signal);
      if (found) return this.kind.read(found);
    }
    const doing = `find ${this.kind.singular} by key "${ref.key}"`;
    const answer = await this.client.call({ method: 'GET', path: `/v1/${this.kind.collection}?client_token=${segment(ref.key)}`, doing, signal: options.signal });
    const [first] = WireReader.of(answer.body, `sandbox: ${doing}`).array(this.kind.collection);
    return first ? this.kind.read(first) : null;
  }

  protected async send(method: 'POST' | 'PATCH', path: string, body: unknown, doing: string, signal?: AbortSignal): Promise<Observed> {
    const answer = await this.client.call({ method, path, body, doing, signal });
    return this.kind.read(WireReader.of(answer.body, `sandbox: ${doing}`).object(this.kind.singular));
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    const path = `/v1/${this.kind.collection}/${segment(externalId)}`;
    await this.client.call({ method: 'DELETE', path, doing: `delete ${this.kind.singular} ${externalId}`, accept: [404], signal: options.signal });
  }
}
