/**
 * @module cairn's sizes for IONOS's managed databases. IONOS's DBaaS takes any number of cores
 * and any RAM in 1,024 MB steps (at least 2,048) per instance rather than fixed plans, and both
 * change in place (`clustersPatch`); cairn offers a small table of shapes named
 * `db-<cores>c-<GB>gb`, so sizes read like every vendor's. Storage is `spec.storageGb` (IONOS's
 * `storageSize`, in MB, 2,048 MB to 2 TB), 20 GB when not given.
 */
import { VendorRejectedError } from '../errors.js';

export interface DatabaseShape {
  slug: string;
  cores: number;
  ramMb: number;
}

export const DATABASE_SHAPES: readonly DatabaseShape[] = [
  { slug: 'db-1c-2gb', cores: 1, ramMb: 2048 },
  { slug: 'db-2c-4gb', cores: 2, ramMb: 4096 },
  { slug: 'db-2c-8gb', cores: 2, ramMb: 8192 },
  { slug: 'db-4c-8gb', cores: 4, ramMb: 8192 },
  { slug: 'db-4c-16gb', cores: 4, ramMb: 16384 },
  { slug: 'db-8c-32gb', cores: 8, ramMb: 32768 },
];

/** Storage when `spec.storageGb` is not given. */
export const DEFAULT_STORAGE_GB = 20;
const MB_PER_GB = 1024;
/** IONOS's `StorageSize` bounds, in MB. */
const STORAGE_MB = { min: 2048, max: 2_097_152 };

/** The shape `slug`, refused naming the offered ones when cairn has none of that name. */
export function databaseShape(slug: string): DatabaseShape {
  const shape = DATABASE_SHAPES.find((s) => s.slug === slug);
  if (!shape) throw new VendorRejectedError(`ionos managed database: size "${slug}" is not offered; sizes: ${DATABASE_SHAPES.map((s) => s.slug).join(', ')}`, { field: 'size' });
  return shape;
}

/** The slug of a cluster's cores and RAM (a shape's name, or one in the same form for a cluster sized elsewhere). */
export function shapeSlug(cores: number, ramMb: number): string {
  return `db-${cores}c-${ramMb / MB_PER_GB}gb`;
}

/** `spec.storageGb` as IONOS's `storageSize` (MB), refused outside IONOS's bounds. */
export function storageMb(storageGb: number | null): number {
  const mb = (storageGb ?? DEFAULT_STORAGE_GB) * MB_PER_GB;
  if (mb < STORAGE_MB.min || mb > STORAGE_MB.max) {
    throw new VendorRejectedError(`ionos managed database: storageGb ${storageGb} is outside what IONOS allows (2 to 2048 GB)`, { field: 'storageGb' });
  }
  return mb;
}

export function storageGbOf(storageMbValue: number): number {
  return Math.round(storageMbValue / MB_PER_GB);
}
