/**
 * @module The `linode` vendor: Linodes and managed PostgreSQL databases through Linode's API v4 (https://api.linode.com/v4, or
 * the Provider's `spec.endpoint`), authenticated by a personal access token as a bearer token.
 * Budget: Linode publishes (techdocs.akamai.com/linode-api/reference/rate-limits; the rate-limit
 * section its openapi.yaml carried until 2024) 1,600 general requests per two minutes (48,000 an
 * hour), 800 a minute per operation, and for lists 100 a minute and 10 a second, so cairn keeps
 * to 48,000 an hour in bursts of at most 10. Creating Linodes has its own limit (10 per 30 s),
 * met by waiting out Linode's 429 and `Retry-After`.
 */
import type { Vendor } from '../contract.js';
import { bearerCloudVendor } from '../kit/bearer-client.js';
import type { VendorErrorText } from '../kit/vendor-http.js';
import { LinodeCloudDriver } from './cloud-driver.js';
import { LinodeManagedDatabaseDriver } from './managed-databases.js';

export const LINODE_API = 'https://api.linode.com/v4';

/** Linode's error body: `{ "errors": [{ "reason": "...", "field": "label" }] }` (the document's `default` answer). */
export function readError(body: unknown): VendorErrorText | undefined {
  const errors = (body as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors)) return undefined;
  const reasons = errors.filter((e): e is { reason: string; field?: unknown } => typeof (e as { reason?: unknown } | null)?.reason === 'string');
  if (reasons.length === 0) return undefined;
  const message = reasons.map((e) => (typeof e.field === 'string' && e.field !== '' ? `${e.field}: ${e.reason}` : e.reason)).join('; ');
  const field = reasons.find((e) => typeof e.field === 'string' && e.field !== '')?.field as string | undefined;
  return field === undefined ? { message } : { message, field };
}

export const linodeVendor: Vendor = bearerCloudVendor({
  id: 'linode', tokenName: 'a Linode personal access token', defaultBaseUrl: LINODE_API, readError, budget: { perHour: 48_000, burst: 10 },
  description: 'Linode (Akamai): Linodes in 25-odd regions (Newark, Frankfurt, London, Singapore, Tokyo, Sydney, ...). Managed PostgreSQL (Databases with managed: true); databases and apps on its Linodes run over SSH.',
  tokenDescription: 'Personal access token (Cloud Manager → profile → API Tokens) with Linodes read/write and, for managed databases, Databases read/write.',
  cloudDriver: (client, baseUrl) => new LinodeCloudDriver(client, baseUrl),
  managedDatabases: { engines: ['postgresql'], driver: (client) => new LinodeManagedDatabaseDriver(client) },
});
