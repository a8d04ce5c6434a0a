/**
 * @module A provider's regions and sizes as its vendor lists them, cached for a minute per
 * provider version, and the check that a server's region and size exist there (422 naming the
 * field and the choices).
 */
import type { Region, Size } from '../drivers/contract.js';
import { ValidationError } from '../model/errors.js';
import type { StoredResource } from '../model/resource.js';
import type { DriverPool } from '../reconcile/driver-pool.js';

const TTL_MS = 60_000;

interface Catalog {
  regions: Region[];
  sizes: Size[];
}

export class ProviderCatalogs {
  private readonly cache = new Map<string, { at: number; catalog: Promise<Catalog> }>();

  constructor(private readonly drivers: DriverPool) {}

  catalog(provider: StoredResource<'Provider'>): Promise<Catalog> {
    const key = `${provider.uid}@${provider.resourceVersion}`;
    const cached = this.cache.get(key);
    if (cached && Date.now() - cached.at < TTL_MS) return cached.catalog;
    const catalog = (async (): Promise<Catalog> => {
      const driver = await this.drivers.cloudFor(provider);
      const [regions, sizes] = await Promise.all([driver.regions(), driver.sizes()]);
      return { regions, sizes };
    })();
    catalog.catch(() => this.cache.delete(key));
    this.cache.set(key, { at: Date.now(), catalog });
    return catalog;
  }

  /** Throws a 422 naming `region` or `size` when the provider does not offer them (together). */
  async check(provider: StoredResource<'Provider'>, region: string | undefined, size: string | undefined): Promise<void> {
    const { regions, sizes } = await this.catalog(provider);
    const issues = [];
    if (region !== undefined && !regions.some((r) => r.slug === region && r.available)) {
      issues.push({ pointer: '/region', message: `provider ${provider.name} has no available region "${region}" (regions: ${regions.filter((r) => r.available).map((r) => r.slug).join(', ')})` });
    }
    const offered = sizes.find((s) => s.slug === size);
    if (size !== undefined && !offered) {
      issues.push({ pointer: '/size', message: `provider ${provider.name} has no size "${size}" (sizes: ${sizes.map((s) => s.slug).join(', ')})` });
    } else if (offered && region !== undefined && offered.regions.length > 0 && !offered.regions.includes(region) && issues.length === 0) {
      issues.push({ pointer: '/size', message: `size "${size}" is not offered in region "${region}" (it is in: ${offered.regions.join(', ')})` });
    }
    if (issues.length > 0) throw new ValidationError(issues.map((i) => `${i.pointer.slice(1)}: ${i.message}`).join('; '), issues);
  }
}
