/**
 * @module The AWS SDK clients of one provider: an EC2 client and an RDS client per region (both
 * are regional: the region names the endpoint and the signature's scope), all pointed at `spec.endpoint` when it is
 * set, all connecting through cairn's outbound guard (guarded http/https agents in the SDK's
 * NodeHttpHandler), with the SDK's own retries off and one rate budget for the provider. Every
 * send goes through awsCall (sdk-call.ts).
 */
import { EC2Client } from '@aws-sdk/client-ec2';
import type { RDSClient } from '@aws-sdk/client-rds';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { guardedHttpAgent, guardedHttpsAgent } from '../../net/guarded-agent.js';
import type { RateBudget } from '../kit/rate-budget.js';
import { awsCall } from './sdk-call.js';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface AwsClientsOptions {
  credentials: AwsCredentials;
  /** `spec.endpoint`: every service and region at this URL (tests, proxies). */
  endpoint: string | undefined;
  requestTimeoutMs: number;
  budget: RateBudget;
}

/** What a send gives the SDK besides the command: the driver call's signal. */
export interface SendOptions {
  abortSignal?: AbortSignal;
}

export class AwsClients {
  private readonly ec2Clients = new Map<string, EC2Client>();
  private readonly rdsClients = new Map<string, RDSClient>();
  private readonly handler: NodeHttpHandler;

  constructor(private readonly options: AwsClientsOptions) {
    this.handler = new NodeHttpHandler({
      httpAgent: guardedHttpAgent(),
      httpsAgent: guardedHttpsAgent(),
      requestTimeout: options.requestTimeoutMs,
      connectionTimeout: options.requestTimeoutMs,
    });
  }

  /** The EC2 client of `region`. */
  ec2(region: string): EC2Client {
    let client = this.ec2Clients.get(region);
    if (!client) {
      client = new EC2Client({
        region,
        credentials: this.options.credentials,
        maxAttempts: 1,
        requestHandler: this.handler,
        ...(this.options.endpoint === undefined ? {} : { endpoint: this.options.endpoint }),
      });
      this.ec2Clients.set(region, client);
    }
    return client;
  }

  /** Sends an EC2 command in `region` within the budget; AWS's refusals become cairn's errors. */
  sendEc2<Output>(region: string, doing: string, signal: AbortSignal | undefined, send: (client: EC2Client, options: SendOptions) => Promise<Output>): Promise<Output> {
    const client = this.ec2(region);
    return awsCall({ label: `aws ec2 ${region}`, budget: this.options.budget, requestTimeoutMs: this.options.requestTimeoutMs, signal }, doing, (abortSignal) => send(client, abortSignal ? { abortSignal } : {}));
  }

  /** Sends an RDS command in `region` within the same budget; `Rds` is the SDK's client class, loaded by the caller (never with the registry). */
  sendRds<Output>(Rds: typeof RDSClient, region: string, doing: string, signal: AbortSignal | undefined, send: (client: RDSClient, options: SendOptions) => Promise<Output>): Promise<Output> {
    let client = this.rdsClients.get(region);
    if (!client) {
      client = new Rds({
        region,
        credentials: this.options.credentials,
        maxAttempts: 1,
        requestHandler: this.handler,
        ...(this.options.endpoint === undefined ? {} : { endpoint: this.options.endpoint }),
      });
      this.rdsClients.set(region, client);
    }
    const rds = client;
    return awsCall({ label: `aws rds ${region}`, budget: this.options.budget, requestTimeoutMs: this.options.requestTimeoutMs, signal }, doing, (abortSignal) => send(rds, abortSignal ? { abortSignal } : {}));
  }

  close(): void {
    for (const client of this.ec2Clients.values()) client.destroy();
    for (const client of this.rdsClients.values()) client.destroy();
    this.handler.destroy();
  }
}
