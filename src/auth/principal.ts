/**
 * @module Who is calling: a signed-in user (access token) or an API token, in one tenant, with
 * the role that holds now (taken from the membership on every request).
 */
import type { Role } from './roles.js';

export interface Principal {
  /** Tenant id. */
  tenant: string;
  role: Role;
  /** `user:<id>` or `token:<id>`. */
  subject: string;
  userId: string | null;
  email: string | null;
  tokenId: string | null;
  /** The sign-in an access token belongs to; null for API tokens. */
  sessionId: string | null;
}
