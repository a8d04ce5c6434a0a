/**
 * @module The sandbox runtime's apps: created once per key, redeployed by every update (the
 * sandbox rolls out a new release for each PATCH that carries configuration), and their logs.
 */
import type { AppDesired, AppLogLine, AppObserved, AppRuntime, CallOptions } from '../contract.js';
import type { SandboxHttpClient } from './http-client.js';
import { HostedThings, segment } from './hosted-things.js';
import { appConfigBody, readApp, readLogLine } from './wire-format.js';
import { WireReader } from '../kit/wire-reader.js';

export class SandboxApps extends HostedThings<AppObserved> implements AppRuntime {
  constructor(client: SandboxHttpClient) {
    super(client, { collection: 'apps', singular: 'app', read: readApp });
  }

  create(key: string, desired: AppDesired, options: CallOptions = {}): Promise<AppObserved> {
    const body = { name: desired.name, server_id: desired.placement.serverExternalId, ...appConfigBody(desired), client_token: key };
    return this.send('POST', '/v1/apps', body, `create app "${desired.name}"`, options.signal);
  }

  update(externalId: string, desired: AppDesired, options: CallOptions = {}): Promise<AppObserved> {
    return this.send('PATCH', `/v1/apps/${segment(externalId)}`, appConfigBody(desired), `deploy app "${desired.name}" (${externalId})`, options.signal);
  }

  async logs(externalId: string, query: { tail?: number; since?: string }, options: CallOptions = {}): Promise<AppLogLine[]> {
    const doing = `read logs of app ${externalId}`;
    const params = new URLSearchParams();
    if (query.tail !== undefined) params.set('tail', String(query.tail));
    if (query.since !== undefined) params.set('since', query.since);
    const search = params.toString() === '' ? '' : `?${params.toString()}`;
    const answer = await this.client.call({ method: 'GET', path: `/v1/apps/${segment(externalId)}/logs${search}`, doing, signal: options.signal });
    return WireReader.of(answer.body, `sandbox: ${doing}`).array('logs').map(readLogLine);
  }
}
