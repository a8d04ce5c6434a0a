/**
 * @module A vendor's regions and sizes, read once and kept for a while (they change rarely and
 * cost calls from the rate budget), and the check every create and resize makes first: a region
 * or size the vendor lacks is refused before anything is sent, naming the ones it has. A miss
 * reads the catalog again once, so a size the vendor added since is not refused.
 */
import type { Region, Size } from '../contract.js';
import { VendorRejectedError } from '../errors.js';

export interface Catalog {
  regions: Region[];
  sizes: Size[];
}

export class CatalogCache {
  private cached: { at: number; catalog: Promise<Catalog> } | undefined;

  constructor(
    private readonly label: string,
    private readonly load: () => Promise<Catalog>,
    private readonly ttlMs = 10 * 60_000,
  ) {}

  get(fresh = false): Promise<Catalog> {
    if (!fresh && this.cached && Date.now() - this.cached.at < this.ttlMs) return this.cached.catalog;
    const catalog = this.load();
    const entry = { at: Date.now(), catalog };
    this.cached = entry;
    catalog.catch(() => {
      if (this.cached === entry) this.cached = undefined;
    });
    return catalog;
  }

  /** Throws a VendorRejectedError on `region` or `size` unless the vendor offers that size there. */
  async checkPlacement(region: string, size: string): Promise<void> {
    let problem = this.problem(await this.get(), region, size);
    if (problem) problem = this.problem(await this.get(true), region, size);
    if (problem) throw problem;
  }

  private problem({ regions, sizes }: Catalog, region: string, size: string): VendorRejectedError | undefined {
    if (!regions.some((r) => r.slug === region && r.available)) {
      const offered = regions.filter((r) => r.available).map((r) => r.slug);
      return new VendorRejectedError(`${this.label}: region "${region}" is not offered; regions: ${offered.join(', ')}`, { field: 'region' });
    }
    if (!sizes.some((s) => s.slug === size && s.regions.includes(region))) {
      const there = sizes.filter((s) => s.regions.includes(region)).map((s) => s.slug);
      return new VendorRejectedError(`${this.label}: size "${size}" is not offered in ${region}; sizes there: ${there.join(', ')}`, { field: 'size' });
    }
    return undefined;
  }
}
