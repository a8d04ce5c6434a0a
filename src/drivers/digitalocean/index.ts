/**
 * @module The `digitalocean` vendor: droplets and managed databases (PostgreSQL, MongoDB)
 * through DigitalOcean's public API v2 (https://api.digitalocean.com/v2, or the Provider's
 * `spec.endpoint`), authenticated by a personal access token, within DigitalOcean's budget of
 * 5,000 requests an hour and 250 a minute per token (the kit's budget keeps to both), for droplets and databases alike.
 */
import type { Vendor } from '../contract.js';
import { bearerCloudVendor } from '../kit/bearer-client.js';
import type { VendorErrorText } from '../kit/vendor-http.js';
import { DigitalOceanCloudDriver } from './cloud-driver.js';
import { DigitalOceanManagedDatabaseDriver } from './managed-databases.js';

export const DIGITALOCEAN_API = 'https://api.digitalocean.com/v2';

/** DigitalOcean's refusal of an action while another runs on the droplet: it passes by itself. */
const PENDING_EVENT = /pending event/i;

/** DigitalOcean's error body: `{ "id": "not_found", "message": "...", "request_id"? }`. */
function readError(body: unknown): VendorErrorText | undefined {
  const error = body as { id?: unknown; message?: unknown } | undefined;
  if (typeof error?.message !== 'string') return undefined;
  const code = typeof error.id === 'string' ? ` (${error.id})` : '';
  return { message: `${error.message}${code}`, ...(PENDING_EVENT.test(error.message) ? { passing: true } : {}) };
}

export const digitalOceanVendor: Vendor = bearerCloudVendor({
  id: 'digitalocean', tokenName: 'a DigitalOcean personal access token', defaultBaseUrl: DIGITALOCEAN_API, readError, budget: { perHour: 5000, burst: 5000, perMinute: 250 },
  description: 'DigitalOcean: droplets in New York, San Francisco, Toronto, Atlanta, Amsterdam, London, Frankfurt, Bangalore, Singapore and Sydney. Managed PostgreSQL and MongoDB (Databases with managed: true); databases and apps on its droplets run over SSH.',
  tokenDescription: 'Personal access token (control panel → API → Tokens) with read and write scopes for droplets, databases (with database:view_credentials), tags, regions and sizes.',
  cloudDriver: (client, baseUrl) => new DigitalOceanCloudDriver(client, baseUrl),
  managedDatabases: { engines: ['postgresql', 'mongodb'], driver: (client) => new DigitalOceanManagedDatabaseDriver(client) },
});
