/**
 * @module Tencent Cloud API 3.0 through the official SDK (tencentcloud-sdk-nodejs-common's
 * AbstractClient, TC3-HMAC-SHA256 signed): one SDK client per service and region, every one
 * connecting through the outbound guard's agent (`httpProfile.agent`), pointed at
 * `Provider.spec.endpoint` when set (the service under `<endpoint>/<service>/`, http or https as
 * the endpoint says), else at `https://<service>.tencentcloudapi.com`. Each call takes its turn
 * in the provider's rate budget, reads are sent again after a passing fault (and a create too:
 * its ClientToken makes it safe), and the SDK's errors become cairn's with Tencent's own code
 * and message (errors.ts).
 */
import type { Agent } from 'node:http';
import { AbstractClient, type ClientConfig } from 'tencentcloud-sdk-nodejs-common';
import { cvm } from 'tencentcloud-sdk-nodejs-cvm';
import { VendorUnavailableError } from '../errors.js';
import { abortable } from '../kit/abortable-sleep.js';
import type { RateBudget } from '../kit/rate-budget.js';
import { guardedHttpAgent, guardedHttpsAgent } from '../../net/guarded-agent.js';
import { tencentError } from './errors.js';

/** A Tencent service cairn calls: its name (its host's first label) and its SDK client. */
export interface TencentService {
  name: string;
  Client: new (config: ClientConfig) => AbstractClient;
}

/** Cloud Virtual Machine, API 2017-03-12 (tencentcloud-sdk-nodejs-cvm). */
export const CVM: TencentService = { name: 'cvm', Client: cvm.v20170312.Client };

/** TencentDB for PostgreSQL, API 2017-03-12: no per-product package, so the SDK's common client with the service's host and version. */
class PostgresClient extends AbstractClient {
  constructor(config: ClientConfig) {
    super('postgres.tencentcloudapi.com', '2017-03-12', config);
  }
}
export const POSTGRES: TencentService = { name: 'postgres', Client: PostgresClient };

/** TencentDB for MongoDB, API 2019-07-25, likewise through the common client. */
class MongodbClient extends AbstractClient {
  constructor(config: ClientConfig) {
    super('mongodb.tencentcloudapi.com', '2019-07-25', config);
  }
}
export const MONGODB: TencentService = { name: 'mongodb', Client: MongodbClient };

export interface TencentClientOptions {
  secretId: string;
  secretKey: string;
  /** `spec.endpoint` (checked), or undefined for Tencent's own hosts. */
  endpoint: string | undefined;
  requestTimeoutMs: number;
  budget: RateBudget;
  /** Times a read (or a create under its ClientToken) is sent again after a passing fault. Default 3. */
  retries?: number;
  backoffMs?: number;
}

export interface TencentCall {
  /** For messages: `describe instances in ap-guangzhou`. */
  doing: string;
  signal?: AbortSignal | undefined;
  /** Sent again after a passing fault: reads, and writes Tencent deduplicates (ClientToken). */
  idempotent?: boolean;
}

export class TencentApi {
  private readonly clients = new Map<string, AbstractClient>();
  private readonly agent: Agent;
  private readonly protocol: string;
  /** Requests sent (every attempt), for benchmarks. */
  sent = 0;

  constructor(private readonly options: TencentClientOptions) {
    const url = options.endpoint === undefined ? undefined : new URL(options.endpoint);
    this.protocol = url?.protocol === 'http:' ? 'http://' : 'https://';
    this.agent = this.protocol === 'http://' ? guardedHttpAgent() : guardedHttpsAgent();
  }

  /** Where a service's SDK client sends its requests, without the scheme (the SDK's `httpProfile.endpoint`). */
  hostOf(service: TencentService): string {
    if (this.options.endpoint === undefined) return `${service.name}.tencentcloudapi.com`;
    const url = new URL(this.options.endpoint);
    return `${url.host}${url.pathname.replace(/\/+$/, '')}/${service.name}`;
  }

  /** Where the API is, for messages. */
  describe(service: TencentService): string {
    return `${this.protocol}${this.hostOf(service)}`;
  }

  /** The service's SDK client for a region; `request(action, …, { signal })` is the SDK's own call, the one its named methods make. */
  private client(service: TencentService, region: string): AbstractClient {
    const id = `${service.name} ${region}`;
    let client = this.clients.get(id);
    if (!client) {
      client = new service.Client({
        credential: { secretId: this.options.secretId, secretKey: this.options.secretKey },
        region,
        profile: {
          signMethod: 'TC3-HMAC-SHA256',
          httpProfile: {
            endpoint: this.hostOf(service),
            protocol: this.protocol,
            reqMethod: 'POST',
            reqTimeout: this.options.requestTimeoutMs / 1000,
            agent: this.agent,
          },
        },
      });
      this.clients.set(id, client);
    }
    return client;
  }

  /** `action` of `service` in `region`, answered with Tencent's `Response` (less its RequestId), or a cairn error. */
  async call<T>(service: TencentService, region: string, action: string, request: object, call: TencentCall): Promise<T> {
    const retries = this.options.retries ?? 3;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.options.budget.take(call.signal);
        this.sent++;
        return (await this.client(service, region).request(action, request, { signal: call.signal })) as T;
      } catch (raw) {
        const error = call.signal?.aborted ? raw : tencentError(raw, `tencent: ${call.doing}`);
        if (!(error instanceof VendorUnavailableError) || attempt >= retries || call.signal?.aborted) throw error;
        // Throttled: every call of this provider waits a second (Tencent's limits are per second).
        if (error.status === 429) this.options.budget.pause(1000);
        else if (!call.idempotent) throw error;
        await abortable(error.status === 429 ? 1000 : (this.options.backoffMs ?? 200) * 2 ** attempt, call.signal);
      }
    }
  }
}
