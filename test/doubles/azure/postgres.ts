/**
 * @module Azure Database for PostgreSQL flexible servers in the Azure double: one resource
 * group's servers (PUT/GET/PATCH/DELETE on `Microsoft.DBforPostgreSQL/flexibleServers/{name}`),
 * each create, password change and delete an asynchronous operation of ARM's (answered with
 * `Azure-AsyncOperation` at `Microsoft.DBforPostgreSQL/locations/{location}/azureAsyncOperation`,
 * applied after the double's `actionMs`). A create is refused, as Azure refuses it, for a
 * location the subscription has not, a compute size Azure does not sell in it, or a password
 * outside Azure's rules; a PUT of an existing name answers with that server. Request bodies are
 * checked by the caller against the SDK's `Server` / `ServerForPatch` models.
 */
import type { AzureOperation, AzureState } from './state.js';
import { LOCATIONS } from './state.js';

/** Compute sizes the double sells for flexible servers, and where. */
export const POSTGRES_SKUS = [
  { name: 'Standard_B1ms', tier: 'Burstable', locations: ['westeurope', 'northeurope', 'eastus'] },
  { name: 'Standard_B2s', tier: 'Burstable', locations: ['westeurope', 'northeurope', 'eastus'] },
  { name: 'Standard_D2ds_v5', tier: 'GeneralPurpose', locations: ['westeurope', 'eastus'] },
  { name: 'Standard_E2ds_v5', tier: 'MemoryOptimized', locations: ['westeurope'] },
] as const;

export interface AzurePostgresServer {
  name: string;
  location: string;
  tags: Record<string, string>;
  sku: { name: string; tier: string };
  administratorLogin: string;
  password: string;
  version: string;
  storageGb: number;
  state: 'Provisioning' | 'Ready' | 'Updating' | 'Dropping';
}

/** What a route answers; `model` names the SDK class its body is checked against. */
export interface PostgresAnswer {
  operationId: string;
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  model?: [pkg: 'postgresql' | 'compute' | 'network' | 'subscriptions', className: string];
}

interface WireServer {
  location?: string;
  tags?: Record<string, string>;
  sku?: { name?: string; tier?: string };
  properties?: { administratorLogin?: string; administratorLoginPassword?: string; version?: string; storage?: { storageSizeGB?: number }; createMode?: string };
}

export interface PostgresRouteContext {
  state: AzureState;
  servers: Map<string, AzurePostgresServer>;
  /** The id of a server in the double's resource group. */
  serverId(name: string): string;
  /** Azure-AsyncOperation (and Retry-After) for an operation. */
  asyncHeaders(op: AzureOperation): Record<string, string>;
  error(status: number, code: string, message: string): Omit<PostgresAnswer, 'operationId'>;
}

/** Azure's password rules: 8 to 128 characters, of at least three of upper, lower, digits and others. */
function passwordProblem(password: string): string | undefined {
  const classes = [/[A-Z]/, /[a-z]/, /\d/, /[^A-Za-z0-9]/].filter((r) => r.test(password)).length;
  if (password.length < 8 || password.length > 128 || classes < 3) return 'The password does not meet the password policy requirements: 8 to 128 characters, from three of uppercase letters, lowercase letters, numbers and non-alphanumeric characters.';
  return undefined;
}

export function serverBody(ctx: PostgresRouteContext, server: AzurePostgresServer): unknown {
  return {
    id: ctx.serverId(server.name), name: server.name, type: 'Microsoft.DBforPostgreSQL/flexibleServers', location: server.location, tags: server.tags,
    sku: server.sku,
    properties: {
      administratorLogin: server.administratorLogin, version: server.version, minorVersion: '6', state: server.state,
      fullyQualifiedDomainName: `${server.name}.postgres.database.azure.com`,
      storage: { storageSizeGB: server.storageGb, autoGrow: 'Disabled', tier: 'P4', iops: 120, type: 'Premium_LRS' },
      backup: { backupRetentionDays: 7, geoRedundantBackup: 'Disabled', earliestRestoreDate: new Date().toISOString() },
      network: { publicNetworkAccess: 'Enabled' },
      highAvailability: { mode: 'Disabled', state: 'NotEnabled' },
      availabilityZone: '1', replicationRole: 'Primary', replicaCapacity: 5,
    },
  };
}

/** The answer to `method` on flexible server `name` (`sub` is a child route, unsupported here). */
export function postgresRoute(ctx: PostgresRouteContext, method: string, name: string, sub: string | undefined, body: unknown): PostgresAnswer {
  const key = name.toLowerCase();
  const server = ctx.servers.get(key);
  const named = (operationId: string, answer: Omit<PostgresAnswer, 'operationId'>): PostgresAnswer => ({ ...answer, operationId });
  const notFound = (operationId: string): PostgresAnswer => named(operationId, ctx.error(404, 'ResourceNotFound', `The Resource 'Microsoft.DBforPostgreSQL/flexibleServers/${name}' under resource group was not found.`));
  if (sub !== undefined) return named('Unknown', ctx.error(405, 'MethodNotAllowed', `The double has no ${method} on flexibleServers/${name}/${sub}`));
  if (method === 'GET') return server ? named('Servers_Get', { status: 200, body: serverBody(ctx, server), model: ['postgresql', 'Server'] }) : notFound('Servers_Get');
  if (method === 'PUT') {
    if (server) return named('Servers_CreateOrUpdate', { status: 200, body: serverBody(ctx, server), model: ['postgresql', 'Server'] });
    const wire = body as WireServer;
    const location = wire.location ?? '';
    if (!LOCATIONS.some((l) => l.physical && l.name === location)) return named('Servers_CreateOrUpdate', ctx.error(400, 'LocationIsOfferRestricted', `Subscriptions are restricted from provisioning in location '${location}'.`));
    const sku = POSTGRES_SKUS.find((s) => s.name === wire.sku?.name);
    if (!sku || !(sku.locations as readonly string[]).includes(location) || sku.tier !== wire.sku?.tier) {
      return named('Servers_CreateOrUpdate', ctx.error(400, 'InvalidSkuName', `The sku '${wire.sku?.name ?? ''}' of tier '${wire.sku?.tier ?? ''}' is not available in location '${location}'.`));
    }
    const props = wire.properties ?? {};
    const problem = passwordProblem(props.administratorLoginPassword ?? '');
    if (problem) return named('Servers_CreateOrUpdate', ctx.error(400, 'PasswordPolicyViolation', problem));
    const made: AzurePostgresServer = {
      name, location, tags: wire.tags ?? {}, sku: { name: sku.name, tier: sku.tier }, administratorLogin: props.administratorLogin ?? '',
      password: props.administratorLoginPassword ?? '', version: props.version ?? '16', storageGb: props.storage?.storageSizeGB ?? 32, state: 'Provisioning',
    };
    ctx.servers.set(key, made);
    const op = ctx.state.operation(location, () => { made.state = 'Ready'; });
    return named('Servers_CreateOrUpdate', { status: 201, body: serverBody(ctx, made), headers: ctx.asyncHeaders(op), model: ['postgresql', 'Server'] });
  }
  if (method === 'PATCH') {
    if (!server) return notFound('Servers_Update');
    const password = (body as WireServer).properties?.administratorLoginPassword;
    if (password !== undefined) {
      const problem = passwordProblem(password);
      if (problem) return named('Servers_Update', ctx.error(400, 'PasswordPolicyViolation', problem));
    }
    server.state = 'Updating';
    const op = ctx.state.operation(server.location, () => {
      if (password !== undefined) server.password = password;
      server.state = 'Ready';
    });
    return named('Servers_Update', { status: 202, headers: ctx.asyncHeaders(op) });
  }
  if (method === 'DELETE') {
    if (!server) return named('Servers_Delete', { status: 204 });
    server.state = 'Dropping';
    const op = ctx.state.operation(server.location, () => ctx.servers.delete(key));
    return named('Servers_Delete', { status: 202, headers: ctx.asyncHeaders(op) });
  }
  return named('Unknown', ctx.error(405, 'MethodNotAllowed', `The double has no ${method} on flexibleServers/${name}`));
}
