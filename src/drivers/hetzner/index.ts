/**
 * @module The `hetzner` vendor: Hetzner Cloud servers through its public API
 * (https://api.hetzner.cloud/v1, or the Provider's `spec.endpoint`), authenticated by a project's
 * API token, within Hetzner's budget of 3,600 requests an hour per project.
 */
import type { Vendor } from '../contract.js';
import { bearerCloudVendor } from '../kit/bearer-client.js';
import type { VendorErrorText } from '../kit/vendor-http.js';
import { HetznerCloudDriver } from './cloud-driver.js';

export const HETZNER_API = 'https://api.hetzner.cloud/v1';

/** Error codes Hetzner gives for what passes by itself: an action still running on the resource, a conflict, maintenance. */
const PASSING = new Set(['locked', 'conflict', 'maintenance', 'timeout', 'unavailable', 'robot_unavailable']);

/** Hetzner's error body: `{ "error": { "code", "message", "details": { "fields": [{ "name" }] } } }`. */
function readError(body: unknown): VendorErrorText | undefined {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: { fields?: Array<{ name?: unknown }> } | null } } | undefined)?.error;
  if (typeof error?.message !== 'string') return undefined;
  const field = error.details?.fields?.[0]?.name;
  const code = typeof error.code === 'string' ? ` (${error.code})` : '';
  return { message: `${error.message}${code}`, ...(typeof field === 'string' ? { field } : {}), ...(PASSING.has(String(error.code)) ? { passing: true } : {}) };
}

export const hetznerVendor: Vendor = bearerCloudVendor({
  id: 'hetzner', tokenName: 'a Hetzner Cloud API token', defaultBaseUrl: HETZNER_API, readError, budget: { perHour: 3600, burst: 3600 },
  description: 'Hetzner Cloud: servers in Falkenstein, Nuremberg, Helsinki, Ashburn, Hillsboro and Singapore. No managed databases; databases and apps on its servers run over SSH.',
  tokenDescription: 'API token of the Hetzner Cloud project (Console → Security → API tokens), with Read & Write permission.',
  cloudDriver: (client, baseUrl) => new HetznerCloudDriver(client, baseUrl),
});
