/**
 * @module Contabo's JSON, read into cairn's driver types: instances (status folded into cairn's,
 * a cancelled instance marked as such, the name and idempotency key from the display name),
 * data centers grouped into the regions an instance is placed in, images, the page count of a
 * list (`_pagination`), and Contabo's error body `{ statusCode, message }`.
 */
import type { Region, ServerObserved, VendorServerStatus } from '../contract.js';
import type { VendorErrorText } from '../kit/vendor-http.js';
import type { WireReader } from '../kit/wire-reader.js';
import { readDisplayName } from './display-name.js';

/** Contabo's instance status (its document's enum) as cairn's. */
export function readStatus(status: string): VendorServerStatus {
  switch (status) {
    case 'provisioning':
    case 'installing':
    case 'uninstalled':
    case 'manual_provisioning':
    case 'reset_password':
      return 'provisioning';
    case 'running':
    case 'rescue':
      return 'running';
    case 'stopped':
      return 'stopped';
    default:
      // error, unknown, product_not_available, verification_required, pending_payment, other: someone must act.
      return 'error';
  }
}

/** An instance as Contabo has it, with whether it is cancelled (it runs until its term ends). */
export interface ContaboInstance {
  observed: Omit<ServerObserved, 'clientToken' | 'image'> & { key: string | undefined };
  imageId: string;
  cancelled: boolean;
}

function address(ipConfig: WireReader, family: 'v4' | 'v6'): string | null {
  if (ipConfig.raw(family) === undefined || ipConfig.raw(family) === null) return null;
  const ip = ipConfig.object(family).string('ip');
  return ip === '' ? null : ip;
}

export function readInstance(instance: WireReader): ContaboInstance {
  const { name, key } = readDisplayName(instance.string('displayName'));
  const cancelDate = instance.raw('cancelDate');
  const ipConfig = instance.raw('ipConfig') === undefined ? undefined : instance.object('ipConfig');
  return {
    observed: {
      id: String(instance.number('instanceId')), name, key, region: instance.string('region'), size: instance.string('productId'),
      status: readStatus(instance.string('status')), ipv4: ipConfig ? address(ipConfig, 'v4') : null, ipv6: ipConfig ? address(ipConfig, 'v6') : null,
    },
    imageId: instance.string('imageId'),
    cancelled: typeof cancelDate === 'string' && cancelDate !== '',
  };
}

/** Data centers grouped by the region an instance is placed in (`regionSlug`, what createInstance takes). */
export function readRegions(dataCenters: readonly WireReader[]): Region[] {
  const regions = new Map<string, Region>();
  for (const dc of dataCenters) {
    const slug = dc.string('regionSlug');
    const vps = dc.strings('capabilities').some((c) => c === 'VPS' || c === 'VDS');
    const known = regions.get(slug);
    regions.set(slug, { slug, name: dc.string('regionName'), available: (known?.available ?? false) || vps });
  }
  return [...regions.values()];
}

export interface ContaboImage {
  id: string;
  name: string;
}

export function readImage(image: WireReader): ContaboImage {
  return { id: image.string('imageId'), name: image.string('name') };
}

/** The next page number, or undefined on the last page. */
export function nextPage(body: WireReader): string | undefined {
  const pagination = body.object('_pagination');
  const page = pagination.number('page');
  return page < pagination.number('totalPages') ? String(page + 1) : undefined;
}

/** Contabo's error body: `{ statusCode, message }`, the message a string or a list of them. */
export function readError(body: unknown): VendorErrorText | undefined {
  const error = body as { message?: unknown } | undefined;
  const message = error?.message;
  if (typeof message === 'string' && message !== '') return { message };
  if (Array.isArray(message) && message.length > 0 && message.every((m) => typeof m === 'string')) return { message: message.join('; ') };
  return undefined;
}
