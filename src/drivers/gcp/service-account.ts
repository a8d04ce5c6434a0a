/**
 * @module A Google Cloud service-account key, as Google issues it (the JSON file made under IAM →
 * Service accounts → Keys): read and checked field by field before anything is sent, so a
 * pasted key that is not one, lacks its private key or names no project is refused saying which
 * field is wrong. The token endpoint is the key's own `token_uri` (Google's keys say
 * `https://oauth2.googleapis.com/token`; a test key names its double's).
 */
import { VendorAuthError } from '../errors.js';

export interface ServiceAccountKey {
  projectId: string;
  clientEmail: string;
  privateKey: string;
  privateKeyId: string | undefined;
  tokenUri: string;
}

/** Google's token endpoint, for a key that names none. */
export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';

function field(key: Record<string, unknown>, name: string, where: string): string {
  const value = key[name];
  if (typeof value !== 'string' || value.trim() === '') throw new VendorAuthError(`${where}: the service-account key has no "${name}"; paste the whole JSON key file Google issued`);
  return value;
}

/** The key from its JSON text; `project` (a credentials field) overrides the key's own project. */
export function readServiceAccountKey(json: string | undefined, where: string, project?: string): ServiceAccountKey {
  if (json === undefined || json.trim() === '') throw new VendorAuthError(`${where}: gcp needs credentials with a "serviceAccountKey" (a service-account key, the JSON file from IAM → Service accounts → Keys)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new VendorAuthError(`${where}: serviceAccountKey is not JSON (${(error as Error).message}); paste the whole key file Google issued`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new VendorAuthError(`${where}: serviceAccountKey must be a JSON object (the key file Google issued)`);
  const key = parsed as Record<string, unknown>;
  if (key['type'] !== 'service_account') throw new VendorAuthError(`${where}: serviceAccountKey has "type" ${JSON.stringify(key['type'])}, not "service_account"; cairn takes a service-account key, not a user's or an external account's credentials`);
  const privateKey = field(key, 'private_key', where);
  if (!privateKey.includes('PRIVATE KEY')) throw new VendorAuthError(`${where}: the service-account key's "private_key" is not a PEM private key`);
  const tokenUri = typeof key['token_uri'] === 'string' && key['token_uri'] !== '' ? key['token_uri'] : GOOGLE_TOKEN_URI;
  let url: URL;
  try {
    url = new URL(tokenUri);
  } catch {
    throw new VendorAuthError(`${where}: the service-account key's "token_uri" ${JSON.stringify(tokenUri)} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new VendorAuthError(`${where}: the service-account key's "token_uri" must be an http(s) URL`);
  const projectId = project !== undefined && project !== '' ? project : field(key, 'project_id', where);
  return {
    projectId,
    clientEmail: field(key, 'client_email', where),
    privateKey,
    privateKeyId: typeof key['private_key_id'] === 'string' ? key['private_key_id'] : undefined,
    tokenUri,
  };
}
