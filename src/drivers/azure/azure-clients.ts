/**
 * @module The Azure SDK clients of one Provider, all going out through the outbound guard: one
 * `ClientSecretCredential` (a service principal's tenant, client id and secret) that asks the
 * Entra authority host for tokens (`authority_host`, default login.microsoftonline.com; instance
 * discovery is off, so nothing else is called), and the compute, network and subscription clients
 * pointed at Azure Resource Manager (`Provider.spec.endpoint`, default management.azure.com).
 * Every connection goes through a guarded https agent that trusts the system's CAs, or the
 * operator's CA file (`CAIRN_VENDOR_CA_FILE`) when set. The SDK's own retries are kept low (two,
 * short waits) and every attempt takes its turn from the provider's rate budget, which follows
 * what ARM says is left (`x-ms-ratelimit-remaining-subscription-*`) and a 429's Retry-After.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Agent } from 'node:https';
import { ComputeManagementClient } from '@azure/arm-compute';
import { NetworkManagementClient } from '@azure/arm-network';
import { SubscriptionClient } from '@azure/arm-resources-subscriptions';
import type { TokenCredential } from '@azure/core-auth';
import type { PipelinePolicy } from '@azure/core-rest-pipeline';
import { ClientSecretCredential } from '@azure/identity';
import { guardedHttpsAgent } from '../../net/guarded-agent.js';
import { checkedAddresses } from '../../net/guarded-fetch.js';
import type { DriverConfig } from '../contract.js';
import { VendorAuthError, VendorRejectedError } from '../errors.js';
import { checkedEndpoint } from '../kit/endpoint.js';
import { sharedBudget, type RateBudget, type RateBudgetOptions } from '../kit/rate-budget.js';
import { parseRetryAfter } from '../kit/vendor-text.js';
import { DEFAULT_RESOURCE_GROUP } from './resource-names.js';

export const AZURE_RESOURCE_MANAGER = 'https://management.azure.com';
export const AZURE_AUTHORITY_HOST = 'https://login.microsoftonline.com';

/** The operator's setting naming a PEM file of the certificate authorities to trust for vendor endpoints (default: the system's). */
export const VENDOR_CA_VARIABLE = 'CAIRN_VENDOR_CA_FILE';

/**
 * ARM's published limits (learn.microsoft.com, "Understand how Azure Resource Manager throttles
 * requests", token-bucket algorithm): per subscription and region, writes refill at 10 a second
 * from a bucket of 200 (reads at 25 from 250); cairn keeps to the writes' rate for all calls.
 */
export const AZURE_BUDGET: RateBudgetOptions = { perHour: 36_000, burst: 200 };

/** The resource group cairn puts a provider's servers in when the credentials name none. */

export interface AzureCredentials {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  subscriptionId: string;
  resourceGroup: string;
  authorityHost: string;
}

export interface AzureClients {
  credentials: AzureCredentials;
  endpoint: string;
  compute: ComputeManagementClient;
  network: NetworkManagementClient;
  subscriptions: SubscriptionClient;
}

const RESOURCE_GROUP = /^[-\w.()]{1,89}[-\w()]$/;

function required(config: DriverConfig, field: string, what: string): string {
  const value = config.credentials?.[field];
  if (value === undefined || value.trim() === '') {
    throw new VendorAuthError(`Provider/${config.providerName}: azure needs credentials with "${field}" (${what}); give tenant_id, client_id, client_secret and subscription_id as a JSON bundle`);
  }
  return value.trim();
}

/** The credential bundle read and checked: which field is missing or wrong, before anything is sent. */
export function azureCredentials(config: DriverConfig): AzureCredentials {
  const tenantId = required(config, 'tenant_id', "the service principal's Entra tenant (directory) id");
  const clientId = required(config, 'client_id', "the service principal's application (client) id");
  const clientSecret = required(config, 'client_secret', "a client secret of the service principal");
  const subscriptionId = required(config, 'subscription_id', 'the subscription the servers are billed to');
  const resourceGroup = config.credentials?.['resource_group']?.trim() || DEFAULT_RESOURCE_GROUP;
  if (!RESOURCE_GROUP.test(resourceGroup)) {
    throw new VendorRejectedError(`Provider/${config.providerName}: credentials.resource_group "${resourceGroup}" is not a resource group name (letters, digits, - _ . ( ), at most 90, not ending in .)`, { field: 'credentials.resource_group' });
  }
  const authority = config.credentials?.['authority_host']?.trim() || AZURE_AUTHORITY_HOST;
  const authorityHost = checkedEndpoint(config.providerName, authority);
  if (authorityHost === undefined || !authorityHost.startsWith('https://')) {
    throw new VendorRejectedError(`Provider/${config.providerName}: credentials.authority_host "${authority}" must be an https URL (the Entra authority, e.g. ${AZURE_AUTHORITY_HOST})`, { field: 'credentials.authority_host' });
  }
  return { tenantId, clientId, clientSecret, subscriptionId, resourceGroup, authorityHost };
}

/** The CA certificates named by CAIRN_VENDOR_CA_FILE, or undefined for the system's. */
export function vendorCertificateAuthorities(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = env[VENDOR_CA_VARIABLE];
  if (file === undefined || file === '') return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new VendorRejectedError(`${VENDOR_CA_VARIABLE} names ${file}, which cannot be read: ${(error as Error).message}`);
  }
}

/** Every attempt (the SDK's retries too) waits its turn in the budget; what ARM says is left and a 429's Retry-After feed it back. */
function budgetPolicy(budget: RateBudget): PipelinePolicy {
  return {
    name: 'cairnRateBudget',
    async sendRequest(request, next) {
      const ticket = await budget.take(request.abortSignal as AbortSignal | undefined);
      const response = await next(request);
      const kind = request.method === 'GET' || request.method === 'HEAD' ? 'reads' : request.method === 'DELETE' ? 'deletes' : 'writes';
      const remaining = response.headers.get(`x-ms-ratelimit-remaining-subscription-${kind}`);
      // ARM says what is left in its bucket, not when it refills (its documents: every second): once spent, wait that second.
      if (remaining !== undefined && /^\d+$/.test(remaining.trim())) budget.observe(Number(remaining), Date.now() + 1_000, ticket);
      if (response.status === 429) {
        const wait = parseRetryAfter(response.headers.get('retry-after') ?? null);
        if (wait !== undefined) budget.pause(wait);
      }
      return response;
    },
  };
}

/**
 * The credential, its authority host checked by the outbound guard before each token request:
 * the guarded agent refuses the connection anyway, but the identity library reports only that
 * its endpoints could not be resolved; this says why.
 */
function guardedCredential(inner: TokenCredential, authorityHost: string): TokenCredential {
  const host = new URL(authorityHost).hostname;
  return {
    async getToken(scopes, options) {
      await checkedAddresses(host);
      return inner.getToken(scopes, options);
    },
  };
}

/** The SDK options every client shares: the guarded agent, few and short retries, the budget. */
function pipelineOptions(agent: Agent, budget: RateBudget, endpoint: string) {
  return {
    endpoint,
    agent,
    retryOptions: { maxRetries: 2, retryDelayInMs: 200, maxRetryDelayInMs: 2_000 },
    additionalPolicies: [{ policy: budgetPolicy(budget), position: 'perRetry' as const }],
    userAgentOptions: { userAgentPrefix: 'cairn' },
  };
}

/** What every Azure SDK client of one Provider shares: its credentials, ARM endpoint, guarded sign-in and pipeline options. */
export interface AzureConnection {
  credentials: AzureCredentials;
  endpoint: string;
  credential: TokenCredential;
  options: ReturnType<typeof pipelineOptions>;
}

/** The Provider's connection to Azure, for any `@azure/arm-*` client (they share one budget through its fingerprint). */
export function azureConnection(config: DriverConfig): AzureConnection {
  const credentials = azureCredentials(config);
  const endpoint = checkedEndpoint(config.providerName, config.spec.endpoint) ?? AZURE_RESOURCE_MANAGER;
  const ca = vendorCertificateAuthorities();
  const agent = guardedHttpsAgent(ca === undefined ? {} : { ca });
  const fingerprint = createHash('sha256').update(`${credentials.tenantId} ${credentials.clientId} ${credentials.subscriptionId}`).digest('hex').slice(0, 16);
  const budget = sharedBudget(`azure ${endpoint} ${fingerprint}`, AZURE_BUDGET);
  const signIn = new ClientSecretCredential(credentials.tenantId, credentials.clientId, credentials.clientSecret, {
    authorityHost: credentials.authorityHost,
    disableInstanceDiscovery: true,
    agent,
    retryOptions: { maxRetries: 1, retryDelayInMs: 200, maxRetryDelayInMs: 2_000 },
  });
  return { credentials, endpoint, credential: guardedCredential(signIn, credentials.authorityHost), options: pipelineOptions(agent, budget, endpoint) };
}

export function azureClients(config: DriverConfig): AzureClients {
  const { credentials, endpoint, credential, options } = azureConnection(config);
  return {
    credentials,
    endpoint,
    compute: new ComputeManagementClient(credential, credentials.subscriptionId, options),
    network: new NetworkManagementClient(credential, credentials.subscriptionId, options),
    subscriptions: new SubscriptionClient(credential, options),
  };
}
