/**
 * @module Makes and caches drivers per Provider resource (remade when the provider's spec or
 * its credentials change): the cloud driver for its servers and the runtime for what is placed
 * on them. Credentials are resolved here from the provider's `credentialsRef` — an environment
 * variable, or a bundle stored (encrypted) through the API — and never logged.
 */
import { createHash } from 'node:crypto';
import type { CloudDriver, CredentialTest, DriverConfig, ManagedDatabaseDriver, RuntimeDriver, Vendor, VendorCredentials } from '../drivers/contract.js';
import { UnsupportedError } from '../drivers/errors.js';
import { managedDatabaseVendors } from '../drivers/registry.js';
import { getVendor } from '../drivers/registry.js';
import type { StoredResource } from '../model/resource.js';
import type { DataKeyWrapper } from '../secrets/sealed-stream.js';
import type { SecretStore } from '../secrets/secret-store.js';
import type { SshAccess } from '../ssh/access.js';
import { environmentRefusal, LOCAL_VENDOR, localVendorRefusal, tenantMayUseHost } from '../security/host-access.js';
import { DEFAULT_CALL_DEADLINES, withDeadlines, type CallDeadlines } from './call-deadlines.js';
import { durableBeforeCalls, type CommitBarrier } from './durable-drivers.js';
import { StallError } from './errors.js';
import { TenantSshAccess, type TenantSshAccessStore } from './tenant-ssh-access.js';

export const REASON_CREDENTIALS_MISSING = 'CredentialsMissing';
export const REASON_CREDENTIALS_INVALID = 'CredentialsUnusable';
export const REASON_UNKNOWN_VENDOR = 'UnknownVendor';
export const REASON_HOST_ACCESS_DENIED = 'HostAccessDenied';
export const REASON_NO_MANAGED_DATABASES = 'NoManagedDatabases';

interface CachedDrivers {
  /** The provider's generation and credentials the drivers were made with (a digest, never the values). */
  fingerprint: string;
  config: DriverConfig;
  vendor: Vendor;
  cloud?: Promise<CloudDriver>;
  runtime?: Promise<RuntimeDriver>;
  managed?: Promise<ManagedDatabaseDriver>;
}

export interface DriverPoolOptions {
  dataDir: string;
  /** The cap on one HTTP request to a vendor (a driver call may make several). */
  requestTimeoutMs: number;
  /** How long each type of driver call may take, whatever it does (call-deadlines.ts); unset types default. */
  deadlines?: Partial<CallDeadlines>;
  /** Fires when the pool's user stops: every driver call in flight is cancelled. */
  stopping?: AbortSignal;
  /** Where `credentialsRef.secret` bundles are read (purpose `provider-credentials`). */
  secrets: SecretStore;
  /** Wraps the data keys of what drivers seal at rest (the store's secrets, which hold the master key). */
  dataKeys: DataKeyWrapper;
  /** Where `credentialsRef.env` variables are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** A tenant's name by its id, so the operator's host-tenant list may name tenants. */
  tenantName?: (tenantId: string) => string | undefined;
  /** When given, every vendor call waits for this commit group first, and may open it again after (see durable-drivers.ts). */
  commits?: CommitBarrier;
  /** How a tenant's drivers reach servers over SSH (tenant-ssh-access.ts); closed with the pool, after its drivers. */
  ssh?: Pick<TenantSshAccess, 'forTenant' | 'close'>;
}

export class DriverPool {
  private readonly cache = new Map<string, CachedDrivers>();
  private readonly deadlines: CallDeadlines;

  constructor(private readonly options: DriverPoolOptions) {
    this.deadlines = { ...DEFAULT_CALL_DEADLINES, ...options.deadlines };
  }

  async cloudFor(provider: StoredResource<'Provider'>): Promise<CloudDriver> {
    const entry = this.entryFor(provider);
    entry.cloud ??= this.build(provider, entry, this.configWithSsh(provider, entry).then(async (config) => this.wrap(await metricsOverSsh(await entry.vendor.createCloudDriver(config), config))));
    return entry.cloud;
  }

  async runtimeFor(provider: StoredResource<'Provider'>): Promise<RuntimeDriver> {
    const entry = this.entryFor(provider);
    entry.runtime ??= this.build(provider, entry, this.configWithSsh(provider, entry).then((config) => entry.vendor.createRuntimeDriver(config)).then((d) => this.wrap(d)));
    return entry.runtime;
  }

  /**
   * The provider's managed database service for `engine` (any engine when not given); stalls,
   * naming the vendors that have one, when its vendor has none or does not run that engine.
   */
  async managedDatabasesFor(provider: StoredResource<'Provider'>, engine?: string): Promise<ManagedDatabaseDriver> {
    const entry = this.entryFor(provider);
    const create = entry.vendor.createManagedDatabases?.bind(entry.vendor);
    const engines = entry.vendor.managedDatabaseEngines ?? [];
    if (!create || (engine !== undefined && !engines.some((e) => e === engine))) {
      const offers = create ? `runs only ${engines.join(', ')} as managed databases` : 'has no managed databases in cairn';
      const elsewhere = managedDatabaseVendors(engine);
      throw new StallError(
        REASON_NO_MANAGED_DATABASES,
        `Provider/${provider.name}: vendor ${entry.vendor.id} ${offers}; ` +
          `${elsewhere.length > 0 ? `managed ${engine ?? 'databases'} run at ${elsewhere.join(', ')}` : `no vendor in cairn runs managed ${engine ?? 'databases'} yet`}, or place the database on a server (spec.server)`,
      );
    }
    entry.managed ??= this.build(provider, entry, create(entry.config).then((d) => this.wrap(d)));
    return entry.managed;
  }

  /**
   * The provider's credential test: through its cloud driver, or, for a vendor that runs no
   * servers (`serversUnsupported`: MongoDB Atlas), through its managed database service.
   */
  async credentialTestFor(provider: StoredResource<'Provider'>): Promise<CredentialTest> {
    const vendor = this.entryFor(provider).vendor;
    if (vendor.serversUnsupported === undefined) return (await this.cloudFor(provider)).testCredentials();
    const managed = await this.managedDatabasesFor(provider);
    if (!managed.testCredentials) throw new UnsupportedError(`vendor ${vendor.id} runs no servers and its managed database service has no credential test`);
    return managed.testCredentials();
  }

  /** How the provider's drivers reach its servers over SSH (DriverConfig.ssh), when they do. */
  async sshAccessFor(provider: StoredResource<'Provider'>): Promise<SshAccess | undefined> {
    return (await this.configWithSsh(provider, this.entryFor(provider))).ssh;
  }

  /** The entry's config with the tenant's SSH access in it (made on first need). */
  private async configWithSsh(provider: StoredResource<'Provider'>, entry: CachedDrivers): Promise<DriverConfig> {
    if (this.options.ssh && entry.config.ssh === undefined) entry.config.ssh = await this.options.ssh.forTenant(provider.tenant);
    return entry.config;
  }

  async close(): Promise<void> {
    const entries = [...this.cache.values()];
    this.cache.clear();
    await Promise.all(entries.map((entry) => closeEntry(entry)));
    await this.options.ssh?.close();
  }

  /**
   * The cached drivers for the provider as it is now. Credentials are resolved on every call
   * (cheap), so credentials stored again through the API are used without a restart.
   */
  private entryFor(provider: StoredResource<'Provider'>): CachedDrivers {
    let vendor: Vendor;
    try {
      vendor = getVendor(provider.spec.vendor);
    } catch (error) {
      throw new StallError(REASON_UNKNOWN_VENDOR, (error as Error).message);
    }
    if (vendor.id === LOCAL_VENDOR && !this.mayUseHost(provider.tenant)) {
      throw new StallError(REASON_HOST_ACCESS_DENIED, `Provider/${provider.name}: ${localVendorRefusal(this.tenantLabel(provider.tenant))}`);
    }
    const credentials = this.resolveCredentials(provider, vendor);
    const fingerprint = createHash('sha256').update(JSON.stringify([provider.generation, credentials ?? null])).digest('hex');
    const existing = this.cache.get(provider.uid);
    if (existing && existing.fingerprint === fingerprint) return existing;
    if (existing) void closeEntry(existing);
    const config: DriverConfig = {
      providerName: provider.name,
      spec: provider.spec,
      credentials,
      dataDir: this.options.dataDir,
      requestTimeoutMs: this.options.requestTimeoutMs,
      dataKeys: this.options.dataKeys,
    };
    const entry: CachedDrivers = { fingerprint, config, vendor };
    this.cache.set(provider.uid, entry);
    return entry;
  }

  private mayUseHost(tenantId: string): boolean {
    return tenantMayUseHost(tenantId, this.options.tenantName?.(tenantId), this.options.env ?? process.env);
  }

  private tenantLabel(tenantId: string): string {
    return this.options.tenantName?.(tenantId) ?? tenantId;
  }

  /** Every verb gets its deadline, and waits for the commit group first (when there is one). */
  private wrap<T extends object>(driver: T): T {
    const bounded = withDeadlines(driver, { deadlines: this.deadlines, ...(this.options.stopping ? { stopping: this.options.stopping } : {}) });
    return this.options.commits ? durableBeforeCalls(bounded, this.options.commits) : bounded;
  }

  /** A failed construction must not stay cached: the next reconcile tries again. */
  private build<T>(provider: StoredResource<'Provider'>, entry: CachedDrivers, made: Promise<T>): Promise<T> {
    made.catch(() => {
      if (this.cache.get(provider.uid) === entry) this.cache.delete(provider.uid);
    });
    return made;
  }

  /** The provider's credential bundle, from its `credentialsRef`; stalls with what to fix when it cannot be had. */
  private resolveCredentials(provider: StoredResource<'Provider'>, vendor: Vendor): VendorCredentials | undefined {
    const ref = provider.spec.credentialsRef;
    if (!ref) return undefined;
    if (ref.env !== undefined) return this.credentialsFromEnv(provider, vendor, ref.env);
    if (ref.secret !== undefined) return this.credentialsFromSecret(provider, ref.secret);
    return undefined;
  }

  /** A variable holding a JSON object is the whole bundle; anything else fills the vendor's first field. */
  private credentialsFromEnv(provider: StoredResource<'Provider'>, vendor: Vendor, variable: string): VendorCredentials {
    if (!this.mayUseHost(provider.tenant)) {
      throw new StallError(REASON_HOST_ACCESS_DENIED, `Provider/${provider.name}: ${environmentRefusal(this.tenantLabel(provider.tenant), variable)}`);
    }
    const value = (this.options.env ?? process.env)[variable];
    if (value === undefined || value === '') {
      throw new StallError(REASON_CREDENTIALS_MISSING, `Provider/${provider.name}: credentialsRef.env names ${variable}, which is not set in cairn's environment`);
    }
    const bundle = parseBundle(value);
    if (bundle) return bundle;
    const field = vendor.credentialFields[0];
    if (!field) {
      throw new StallError(
        REASON_CREDENTIALS_INVALID,
        `Provider/${provider.name}: vendor ${vendor.id} takes no credentials, but credentialsRef.env names ${variable}; remove credentialsRef`,
      );
    }
    return { [field.name]: value };
  }

  private credentialsFromSecret(provider: StoredResource<'Provider'>, name: string): VendorCredentials {
    let stored: string | undefined;
    try {
      stored = this.options.secrets.get(provider.tenant, 'provider-credentials', name);
    } catch (error) {
      throw new StallError(REASON_CREDENTIALS_INVALID, `Provider/${provider.name}: credentials "${name}" cannot be read: ${(error as Error).message}`);
    }
    if (stored === undefined) {
      throw new StallError(
        REASON_CREDENTIALS_MISSING,
        `Provider/${provider.name}: credentials "${name}" are not stored; create them with POST /api/v1/providers ` +
          `({"name": "${name}", "vendor": "${provider.spec.vendor}", "credentials": {...}}), or use credentialsRef.env`,
      );
    }
    const bundle = parseBundle(stored);
    if (!bundle) {
      throw new StallError(REASON_CREDENTIALS_INVALID, `Provider/${provider.name}: the stored credentials "${name}" are not a JSON object of strings; store them again`);
    }
    return bundle;
  }
}

/** A JSON object whose values are all strings, or undefined for anything else. */
function parseBundle(text: string): VendorCredentials | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const entries = Object.entries(parsed as Record<string, unknown>);
  if (!entries.every((entry): entry is [string, string] => typeof entry[1] === 'string')) return undefined;
  return Object.freeze(Object.fromEntries(entries));
}

/** A cloud driver whose vendor reports no metrics gets them read from the server over SSH (loaded only then). */
async function metricsOverSsh(driver: CloudDriver, config: DriverConfig): Promise<CloudDriver> {
  if (driver.metricsUnsupported === undefined || config.ssh === undefined) return driver;
  const { withSshMetrics } = await import('../drivers/ssh/ssh-metrics.js');
  return withSshMetrics(driver, config.ssh);
}

async function closeEntry(entry: CachedDrivers): Promise<void> {
  const closing: Array<Promise<{ close(): Promise<void> }>> = [];
  for (const driver of [entry.cloud, entry.runtime, entry.managed]) if (driver !== undefined) closing.push(driver);
  await Promise.allSettled(closing.map(async (d) => (await d).close()));
}

/**
 * What of a store a pool needs: its secrets (credentials, backup data keys), its tenants' names
 * (host access) and its commit group (vendor calls wait for what was written before them).
 */
export interface DriverPoolStore extends TenantSshAccessStore {
  secrets: SecretStore & DataKeyWrapper;
  tenants: { get(id: string): { name: string } | undefined };
  commits?: { committed(): Promise<void>; begin(): void };
}

/**
 * The pool for a store's providers. Its vendor calls wait for the store's commit group; with
 * `groupWrites` (the reconcile loop) each call also opens the group again for the writes after it.
 */
export function driverPoolFor(
  store: DriverPoolStore,
  dataDir: string,
  requestTimeoutMs: number,
  options: { groupWrites?: boolean; deadlines?: Partial<CallDeadlines>; stopping?: AbortSignal } = {},
): DriverPool {
  const commits = store.commits;
  const barrier: CommitBarrier | undefined =
    commits === undefined ? undefined : options.groupWrites === true ? commits : { committed: () => commits.committed() };
  return new DriverPool({
    dataDir,
    requestTimeoutMs,
    ssh: new TenantSshAccess(store),
    secrets: store.secrets,
    dataKeys: store.secrets,
    tenantName: (id) => store.tenants.get(id)?.name,
    ...(barrier ? { commits: barrier } : {}),
    ...(options.deadlines ? { deadlines: options.deadlines } : {}),
    ...(options.stopping ? { stopping: options.stopping } : {}),
  });
}
