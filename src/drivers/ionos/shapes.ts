/**
 * @module cairn's sizes at IONOS. IONOS ENTERPRISE servers take any number of cores and any RAM
 * (in 256 MB steps) rather than fixed plans, and a server's cores and RAM change in place
 * (`datacentersServersPatch`); its CUBE templates (`templatesGet`) are fixed plans on local
 * storage that cannot grow. cairn offers a small table of ENTERPRISE shapes, named
 * `e-<cores>c-<GB>gb`, so sizes read like every vendor's and resize in place; a shape is offered
 * in a location when one of the location's CPU architectures (`cpuArchitecture`: maxCores,
 * maxRam) can hold it. Prices are not in the Cloud API (0).
 */
import type { Size } from '../contract.js';
import { VendorRejectedError } from '../errors.js';

export interface Shape {
  slug: string;
  cores: number;
  ramMb: number;
  diskGb: number;
}

export const SHAPES: readonly Shape[] = [
  { slug: 'e-1c-2gb', cores: 1, ramMb: 2048, diskGb: 20 },
  { slug: 'e-2c-4gb', cores: 2, ramMb: 4096, diskGb: 40 },
  { slug: 'e-2c-8gb', cores: 2, ramMb: 8192, diskGb: 80 },
  { slug: 'e-4c-8gb', cores: 4, ramMb: 8192, diskGb: 80 },
  { slug: 'e-4c-16gb', cores: 4, ramMb: 16384, diskGb: 160 },
  { slug: 'e-8c-32gb', cores: 8, ramMb: 32768, diskGb: 320 },
];

export function shapeOf(slug: string): Shape | undefined {
  return SHAPES.find((s) => s.slug === slug);
}

/** The slug of a server's cores and RAM: its shape's, or `custom-<cores>c-<ram>mb` for one cairn did not size. */
export function slugOf(cores: number, ramMb: number): string {
  return SHAPES.find((s) => s.cores === cores && s.ramMb === ramMb)?.slug ?? `custom-${cores}c-${ramMb}mb`;
}

/** The largest server a location's CPU architectures can run. */
export interface LocationLimits {
  location: string;
  architectures: Array<{ maxCores: number; maxRamMb: number }>;
}

/** The table as sizes, each offered where an architecture holds it. */
export function shapeSizes(locations: readonly LocationLimits[]): Size[] {
  return SHAPES.map((s) => ({
    slug: s.slug, vcpus: s.cores, memoryMb: s.ramMb, diskGb: s.diskGb, priceMonthly: 0,
    regions: locations.filter((l) => l.architectures.some((a) => a.maxCores >= s.cores && a.maxRamMb >= s.ramMb)).map((l) => l.location),
  }));
}

/**
 * The boot volume's image for a cairn image name: an IONOS image alias (`debian:12`,
 * `ubuntu:latest`) or image UUID as is, or cairn's `<distribution>-<version>` (`debian-12` is the
 * alias `debian:12`); throws on a name that is neither.
 */
export function ionosImage(image: string): { imageAlias: string } | { image: string } {
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(image)) return { image };
  if (/^[a-z]+:[\w.]+$/.test(image)) return { imageAlias: image };
  const named = /^([a-z]+)-(\d[\d.]*|latest)$/.exec(image);
  if (named) return { imageAlias: `${named[1]}:${named[2]}` };
  throw new VendorRejectedError(`ionos: image "${image}" is neither an IONOS image alias (debian:12), an image UUID, nor a distribution and version (debian-12, ubuntu-24.04)`, { field: 'image' });
}

/** The image as cairn names it: the alias `debian:12` is `debian-12`; a UUID stays. */
export function imageName(alias: string | null, image: string | null): string {
  if (alias !== null && alias !== '') {
    const named = /^([a-z]+):(.+)$/.exec(alias);
    return named ? `${named[1]}-${named[2]}` : alias;
  }
  return image ?? '';
}
