/**
 * @module The `leaseweb` vendor: Leaseweb Public Cloud instances through its Public Cloud API v1
 * (https://api.leaseweb.com/publicCloud/v1, or the Provider's `spec.endpoint`), authenticated by
 * an API key sent in the `X-LSW-Auth` header (the document's security scheme). Budget: Leaseweb
 * publishes no rate limit (neither its document nor developer.leaseweb.com states one), so cairn
 * keeps to a conservative 5 requests a second (18,000 an hour, bursts of 10) per key and follows
 * a 429's `Retry-After` when Leaseweb sends one.
 */
import type { Vendor } from '../contract.js';
import { bearerCloudVendor } from '../kit/bearer-client.js';
import { LeasewebCloudDriver } from './cloud-driver.js';
import { readError } from './wire-format.js';

export { readError };

export const LEASEWEB_API = 'https://api.leaseweb.com/publicCloud/v1';

/** A guess, Leaseweb publishing none (see the module comment). */
export const LEASEWEB_BUDGET = { perHour: 18_000, burst: 10 };

export const leasewebVendor: Vendor = bearerCloudVendor({
  id: 'leaseweb', tokenName: 'a Leaseweb API key', defaultBaseUrl: LEASEWEB_API, readError, budget: LEASEWEB_BUDGET,
  authHeaders: (token) => ({ 'x-lsw-auth': token }),
  description: 'Leaseweb Public Cloud: instances in Amsterdam, Frankfurt, London, Washington, San Francisco, Montreal, Singapore and Tokyo, billed hourly. Managed databases: Leaseweb has none; databases and apps on its instances run over SSH.',
  tokenDescription: 'An API key (Customer Portal → API client management), sent as the X-LSW-Auth header.',
  cloudDriver: (client, baseUrl) => new LeasewebCloudDriver(client, baseUrl),
});
