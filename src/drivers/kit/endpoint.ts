/**
 * @module A Provider's `spec.endpoint`: the vendor's API base URL for tests, proxies and
 * API-compatible clouds. Checked to be an http(s) URL here; where it may point (not cairn's
 * private network) is the outbound guard's decision, at every request.
 */
import { VendorRejectedError } from '../errors.js';

/** The endpoint without trailing slashes, or undefined when none is set. */
export function checkedEndpoint(providerName: string, endpoint: string | undefined): string | undefined {
  if (endpoint === undefined || endpoint === '') return undefined;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new VendorRejectedError(`Provider/${providerName}: spec.endpoint "${endpoint}" is not a URL (e.g. https://api.example.com/v1)`, { field: 'endpoint' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new VendorRejectedError(`Provider/${providerName}: spec.endpoint "${endpoint}" must be an http or https URL`, { field: 'endpoint' });
  }
  return endpoint.replace(/\/+$/, '');
}
