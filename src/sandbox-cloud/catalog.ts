/**
 * @module What the sandbox cloud offers: its regions (one of them unavailable, as real vendors
 * have) and its sizes (one of them only in some regions). All names say they are simulated.
 */

export interface RegionEntry {
  slug: string;
  name: string;
  available: boolean;
}

export interface SizeEntry {
  slug: string;
  vcpus: number;
  memory_mb: number;
  disk_gb: number;
  price_monthly: number;
  regions: string[];
}

export const REGIONS: readonly RegionEntry[] = [
  { slug: 'eu-1', name: 'Europe 1 (simulated)', available: true },
  { slug: 'us-1', name: 'United States 1 (simulated)', available: true },
  { slug: 'ap-1', name: 'Asia Pacific 1 (simulated)', available: true },
  { slug: 'sa-1', name: 'South America 1 (simulated, not available)', available: false },
];

const AVAILABLE = REGIONS.filter((r) => r.available).map((r) => r.slug);

export const SIZES: readonly SizeEntry[] = [
  { slug: 'small', vcpus: 1, memory_mb: 1024, disk_gb: 25, price_monthly: 6, regions: AVAILABLE },
  { slug: 'medium', vcpus: 2, memory_mb: 4096, disk_gb: 80, price_monthly: 24, regions: AVAILABLE },
  { slug: 'large', vcpus: 4, memory_mb: 8192, disk_gb: 160, price_monthly: 48, regions: AVAILABLE },
  { slug: 'xlarge', vcpus: 8, memory_mb: 16384, disk_gb: 320, price_monthly: 96, regions: ['eu-1', 'us-1'] },
];

export function availableRegionSlugs(): string[] {
  return [...AVAILABLE];
}

export function findRegion(slug: string): RegionEntry | undefined {
  return REGIONS.find((r) => r.slug === slug);
}

export function findSize(slug: string): SizeEntry | undefined {
  return SIZES.find((s) => s.slug === slug);
}
