/**
 * @module Access tokens: JWTs (RFC 9068 `at+jwt`) signed EdDSA with a `kid`, carrying iss, aud,
 * sub (user id), tid (tenant id), role, sid (sign-in session), iat, exp and jti. Verification
 * pins the algorithm to EdDSA, so `alg: none` and symmetric algorithms (HS256 keyed with the
 * public key, say) are refused before any key is used. Verified tokens are remembered, so the
 * signature of a token presented again is not checked again.
 */
import { randomUUID } from 'node:crypto';
import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { UnauthorizedError } from '../model/errors.js';
import type { Role } from './roles.js';
import { ACCESS_TOKEN_TTL_SECONDS, SIGNING_ALG, type SigningKeyring } from './signing-keyring.js';

const TOKEN_TYPE = 'at+jwt';
const EXPIRED = 'the access token has expired; refresh it or sign in again';

export interface AccessTokenClaims {
  userId: string;
  tenant: string;
  role: Role;
  sessionId: string;
}

export interface AccessTokenIssuer {
  issuer: string;
  audience: string;
  now: () => number;
}

export async function signAccessToken(keyring: SigningKeyring, settings: AccessTokenIssuer, claims: AccessTokenClaims): Promise<string> {
  const { kid, key } = await keyring.signingKey();
  const iat = Math.floor(settings.now() / 1000);
  return new SignJWT({ tid: claims.tenant, role: claims.role, sid: claims.sessionId })
    .setProtectedHeader({ alg: SIGNING_ALG, kid, typ: TOKEN_TYPE })
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setSubject(claims.userId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_TTL_SECONDS)
    .setJti(randomUUID())
    .sign(key);
}

export interface VerifiedAccessToken {
  userId: string;
  tenant: string;
  sessionId: string;
}

interface CachedVerification extends VerifiedAccessToken {
  kid: string;
  expiresAtMs: number;
}

/** How many verified tokens are remembered (about 0.5 KiB each). */
const CACHE_SIZE = 10_000;

/**
 * Verifies access tokens. A token's signature, algorithm, issuer and audience never change, so
 * a token that passed them is remembered by its exact text and later presentations skip the
 * signature check; expiry and the key's retirement are checked on every call.
 */
export class AccessTokenVerifier {
  private readonly verified = new Map<string, CachedVerification>();

  constructor(
    private readonly keyring: SigningKeyring,
    private readonly settings: AccessTokenIssuer,
  ) {}

  /** The token's user, tenant and session once its signature, algorithm, issuer, audience and expiry check out. */
  async verify(token: string): Promise<VerifiedAccessToken> {
    const cached = this.verified.get(token);
    if (cached) {
      if (cached.expiresAtMs <= this.settings.now()) {
        this.verified.delete(token);
        throw new UnauthorizedError(EXPIRED);
      }
      await this.keyring.verificationKey(cached.kid);
      return { userId: cached.userId, tenant: cached.tenant, sessionId: cached.sessionId };
    }
    const result = await this.verifySignature(token);
    if (this.verified.size >= CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, result);
    return { userId: result.userId, tenant: result.tenant, sessionId: result.sessionId };
  }

  private async verifySignature(token: string): Promise<CachedVerification> {
    let payload: JWTPayload;
    let kid: string | undefined;
    try {
      ({ payload, protectedHeader: { kid } } = await jwtVerify(token, (header) => this.keyring.verificationKey(header.kid), {
        algorithms: [SIGNING_ALG],
        typ: TOKEN_TYPE,
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        currentDate: new Date(this.settings.now()),
        requiredClaims: ['iat', 'exp', 'sub', 'jti', 'tid', 'sid'],
      }));
    } catch (error) {
      if (error instanceof UnauthorizedError) throw error;
      if (error instanceof errors.JWTExpired) throw new UnauthorizedError(EXPIRED);
      if (error instanceof errors.JOSEError) throw new UnauthorizedError(`the access token is not valid: ${error.message}`);
      throw error;
    }
    const { sub, tid, sid, exp } = payload;
    if (typeof sub !== 'string' || typeof tid !== 'string' || typeof sid !== 'string' || typeof exp !== 'number' || typeof kid !== 'string') {
      throw new UnauthorizedError('the access token is not valid: sub, tid, sid and kid must be strings');
    }
    return { userId: sub, tenant: tid, sessionId: sid, kid, expiresAtMs: exp * 1000 };
  }
}
