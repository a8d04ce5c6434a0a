/**
 * @module What every identity provider's client does, whatever its protocol: build the URL the
 * browser is sent to, and turn the callback into the account it proved (subject, e-mail and
 * whether the provider verified that e-mail). A refused callback throws SignInRefusedError.
 */
import { UnauthorizedError } from '../../model/errors.js';
import type { ProviderName } from './settings.js';

/** The account a provider vouched for. */
export interface ProviderIdentity {
  provider: ProviderName;
  /** The provider's stable id of the account (OIDC `sub`, GitHub's numeric user id). */
  subject: string;
  /** Lower-cased; null when the provider gave none. */
  email: string | null;
  emailVerified: boolean;
}

/** What the started sign-in stored, handed back on the callback. */
export interface PendingSignIn {
  state: string;
  codeVerifier: string;
  nonce: string | null;
}

export interface AuthorizationRequest {
  state: string;
  codeChallenge: string;
  nonce: string;
}

export interface IdentityProviderClient {
  readonly name: ProviderName;
  /** Whether the provider takes a `nonce` (OpenID Connect) that the callback checks. */
  readonly usesNonce: boolean;
  authorizationUrl(request: AuthorizationRequest): Promise<URL>;
  /** Exchanges the callback's code and reads the identity; throws SignInRefusedError. */
  finish(callback: URL, pending: PendingSignIn): Promise<ProviderIdentity>;
}

/** The callback cannot be trusted or the provider refused it: 401, and nothing is created. */
export class SignInRefusedError extends UnauthorizedError {}

/** The fetch the clients make their calls with (cairn's outbound guard in production). */
export type OutboundFetch = (url: string, init: { method?: string; headers?: Record<string, string>; body?: string | URLSearchParams | ArrayBuffer | Uint8Array | ReadableStream | null; redirect?: 'manual' | 'follow' | 'error'; signal?: AbortSignal }) => Promise<Response>;
