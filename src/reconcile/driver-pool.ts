/**
 * @module Makes and caches drivers per Provider resource (remade when the provider's spec
 * changes): the cloud driver for its servers and the runtime for what is placed on them.
 * Credentials are resolved here from the provider's `credentialsRef` and never logged.
 */
import type { CloudDriver, DriverConfig, RuntimeDriver } from '../drivers/contract.js';
import { getVendor } from '../drivers/registry.js';
import type { StoredResource } from '../model/resource.js';
import { StallError } from './errors.js';

export const REASON_CREDENTIALS_MISSING = 'CredentialsMissing';
export const REASON_UNKNOWN_VENDOR = 'UnknownVendor';

interface CachedDrivers {
  generation: number;
  cloud?: Promise<CloudDriver>;
  runtime?: Promise<RuntimeDriver>;
}

export interface DriverPoolOptions {
  dataDir: string;
  requestTimeoutMs: number;
  env?: NodeJS.ProcessEnv;
}

export class DriverPool {
  private readonly cache = new Map<string, CachedDrivers>();

  constructor(private readonly options: DriverPoolOptions) {}

  cloudFor(provider: StoredResource<'Provider'>): Promise<CloudDriver> {
    const entry = this.entryFor(provider);
    entry.cloud ??= this.make(provider, (vendor, config) => vendor.createCloudDriver(config));
    return entry.cloud;
  }

  runtimeFor(provider: StoredResource<'Provider'>): Promise<RuntimeDriver> {
    const entry = this.entryFor(provider);
    entry.runtime ??= this.make(provider, (vendor, config) => vendor.createRuntimeDriver(config));
    return entry.runtime;
  }

  async close(): Promise<void> {
    const entries = [...this.cache.values()];
    this.cache.clear();
    await Promise.all(entries.map((entry) => closeEntry(entry)));
  }

  private entryFor(provider: StoredResource<'Provider'>): CachedDrivers {
    const existing = this.cache.get(provider.uid);
    if (existing && existing.generation === provider.generation) return existing;
    if (existing) void closeEntry(existing);
    const entry: CachedDrivers = { generation: provider.generation };
    this.cache.set(provider.uid, entry);
    return entry;
  }

  private async make<T>(
    provider: StoredResource<'Provider'>,
    build: (vendor: ReturnType<typeof getVendor>, config: DriverConfig) => Promise<T>,
  ): Promise<T> {
    let vendor;
    try {
      vendor = getVendor(provider.spec.vendor);
    } catch (error) {
      throw new StallError(REASON_UNKNOWN_VENDOR, (error as Error).message);
    }
    const config: DriverConfig = {
      providerName: provider.name,
      spec: provider.spec,
      credentials: this.resolveCredentials(provider),
      dataDir: this.options.dataDir,
      requestTimeoutMs: this.options.requestTimeoutMs,
    };
    const made = build(vendor, config);
    // A failed construction must not stay cached: the next reconcile tries again.
    made.catch(() => this.cache.delete(provider.uid));
    return made;
  }

  private resolveCredentials(provider: StoredResource<'Provider'>): string | undefined {
    const ref = provider.spec.credentialsRef;
    if (!ref) return undefined;
    if (ref.env !== undefined) {
      const value = (this.options.env ?? process.env)[ref.env];
      if (value === undefined || value === '') {
        throw new StallError(
          REASON_CREDENTIALS_MISSING,
          `Provider/${provider.name}: credentialsRef.env names ${ref.env}, which is not set in cairn's environment`,
        );
      }
      return value;
    }
    throw new StallError(
      REASON_CREDENTIALS_MISSING,
      `Provider/${provider.name}: credentialsRef.secret needs credentials stored through the REST API, which this cairn does not serve yet; use credentialsRef.env`,
    );
  }
}

async function closeEntry(entry: CachedDrivers): Promise<void> {
  const closing = [entry.cloud, entry.runtime].filter((d): d is Promise<CloudDriver> | Promise<RuntimeDriver> => d !== undefined);
  await Promise.allSettled(closing.map(async (d) => (await d).close()));
}
