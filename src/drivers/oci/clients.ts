/**
 * @module The OCI SDK's clients for one Provider: Compute and Virtual Network (oci-core) and
 * Identity (oci-identity), signed by the SDK's `SimpleAuthenticationDetailsProvider` from the
 * Provider's credentials, sending through cairn's guarded http client (http-client.ts) with the
 * SDK's own retries and circuit breaker off, at `spec.endpoint` when set (every service behind
 * one base URL, for tests and proxies) or else at the region's own endpoints. One rate budget per
 * provider: OCI publishes no account-wide request rate (its limits are per API and undisclosed;
 * it answers 429 `TooManyRequests` past them), so cairn keeps to 10 requests a second, bursts of
 * 10, and follows a 429's Retry-After.
 */
import { DefaultRequestSigner, MaxAttemptsTerminationStrategy, SimpleAuthenticationDetailsProvider, type ClientConfiguration } from 'oci-common';
import { ComputeClient, VirtualNetworkClient } from 'oci-core';
import { IdentityClient } from 'oci-identity';
import type { DriverConfig } from '../contract.js';
import { checkedEndpoint } from '../kit/endpoint.js';
import { sharedBudget } from '../kit/rate-budget.js';
import { readOciCredentials, type OciCredentials } from './credentials.js';
import { GuardedOciHttpClient } from './http-client.js';

export interface OciClients {
  credentials: OciCredentials;
  compute: ComputeClient;
  network: VirtualNetworkClient;
  identity: IdentityClient;
  http: GuardedOciHttpClient;
  /** Where the API is, for messages. */
  describeEndpoint: string;
}

/** One attempt per SDK call: retries are the http client's (safe requests only) and the reconciler's. */
const NO_SDK_RETRIES: ClientConfiguration = { retryConfiguration: { terminationStrategy: new MaxAttemptsTerminationStrategy(1) } };

export function ociClients(config: DriverConfig): OciClients {
  const credentials = readOciCredentials(config);
  const endpoint = checkedEndpoint(config.providerName, config.spec.endpoint);
  const auth = new SimpleAuthenticationDetailsProvider(credentials.tenancy, credentials.user, credentials.fingerprint, credentials.privateKey, credentials.passphrase);
  const http = new GuardedOciHttpClient({
    signer: new DefaultRequestSigner(auth),
    requestTimeoutMs: config.requestTimeoutMs,
    budget: sharedBudget(`oci ${endpoint ?? credentials.region} ${credentials.tenancy}/${credentials.user}/${credentials.fingerprint}`, { perHour: 36_000, burst: 10 }),
  });
  // Only the http client: it signs with `auth` itself (the SDK takes one or the other).
  const params = { httpClient: http };
  const compute = new ComputeClient(params, NO_SDK_RETRIES);
  const network = new VirtualNetworkClient(params, NO_SDK_RETRIES);
  const identity = new IdentityClient(params, NO_SDK_RETRIES);
  for (const client of [compute, network, identity]) {
    if (endpoint === undefined) client.regionId = credentials.region;
    else client.endpoint = endpoint;
  }
  return { credentials, compute, network, identity, http, describeEndpoint: endpoint ?? `OCI region ${credentials.region}` };
}
