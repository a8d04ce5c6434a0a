/**
 * @module The `vultr` vendor: instances through Vultr's API v2 (https://api.vultr.com/v2, or the
 * Provider's `spec.endpoint`), authenticated by an API key as a bearer token, within Vultr's
 * published limit of 30 requests a second (108,000 an hour, bursts of 30).
 */
import type { Vendor } from '../contract.js';
import { bearerCloudVendor } from '../kit/bearer-client.js';
import type { VendorErrorText } from '../kit/vendor-http.js';
import { VultrCloudDriver } from './cloud-driver.js';

export const VULTR_API = 'https://api.vultr.com/v2';

/** Vultr's error body: `{ "error": "...", "status": 400 }` (every 4xx, per its document's introduction). */
function readError(body: unknown): VendorErrorText | undefined {
  const error = body as { error?: unknown } | undefined;
  if (typeof error?.error !== 'string' || error.error === '') return undefined;
  return { message: error.error };
}

export const vultrVendor: Vendor = bearerCloudVendor({
  id: 'vultr', tokenName: 'a Vultr API key', defaultBaseUrl: VULTR_API, readError, budget: { perHour: 108_000, burst: 30 },
  description: 'Vultr: instances in 30-odd regions (Amsterdam, Frankfurt, London, New Jersey, Tokyo, Sydney, ...). Managed databases are not built yet; databases and apps on its instances run over SSH.',
  tokenDescription: 'API key (customer portal → Account → API), with the address cairn calls from allowed in its access control.',
  cloudDriver: (client, baseUrl) => new VultrCloudDriver(client, baseUrl),
});
