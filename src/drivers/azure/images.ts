/**
 * @module A server's image as Azure names it: a marketplace image URN
 * `publisher:offer:sku:version`, or one of cairn's short names for the common Linux images
 * (`debian-12`, `ubuntu-24.04`, …). Anything else is refused before a create is sent.
 */
import type { ImageReference } from '@azure/arm-compute';
import { VendorRejectedError } from '../errors.js';

export const IMAGE_ALIASES: Readonly<Record<string, string>> = {
  'debian-12': 'Debian:debian-12:12-gen2:latest',
  'debian-11': 'Debian:debian-11:11-gen2:latest',
  'ubuntu-24.04': 'Canonical:ubuntu-24_04-lts:server:latest',
  'ubuntu-22.04': 'Canonical:0001-com-ubuntu-server-jammy:22_04-lts-gen2:latest',
};

const URN = /^([^:\s]+):([^:\s]+):([^:\s]+):([^:\s]+)$/;

/** The image reference for a short name or URN; a VendorRejectedError on `image` otherwise. */
export function imageReference(image: string): ImageReference {
  const urn = IMAGE_ALIASES[image] ?? image;
  const match = URN.exec(urn);
  if (!match) {
    throw new VendorRejectedError(`azure: image "${image}" is neither a marketplace URN (publisher:offer:sku:version) nor one of ${Object.keys(IMAGE_ALIASES).join(', ')}`, { field: 'image' });
  }
  return { publisher: match[1]!, offer: match[2]!, sku: match[3]!, version: match[4]! };
}

/** The short name of an image reference when it has one, else its URN. */
export function imageName(reference: ImageReference | undefined): string {
  if (!reference) return '';
  const urn = `${reference.publisher ?? ''}:${reference.offer ?? ''}:${reference.sku ?? ''}:${reference.version ?? ''}`;
  return Object.entries(IMAGE_ALIASES).find(([, value]) => value.toLowerCase() === urn.toLowerCase())?.[0] ?? urn;
}
