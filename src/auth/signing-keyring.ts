/**
 * @module The Ed25519 keys that sign access tokens, as the auth service uses them: the signing
 * key is re-read from the store at each signing (so a rotation by another process is picked up),
 * imported keys are cached by kid, and a superseded key keeps verifying (and stays in the JWKS)
 * until every token it signed has expired.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { importJWK, type CryptoKey, type JWK } from 'jose';
import { UnauthorizedError } from '../model/errors.js';
import type { SigningKeyRecord, SigningKeys } from '../store/signing-keys.js';

export const SIGNING_ALG = 'EdDSA';
/** Lifetime of access tokens, in seconds. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
/** Added to a superseded key's life, for clocks that disagree a little. */
const RETIREMENT_GRACE_SECONDS = 60;

export class SigningKeyring {
  private readonly imported = new Map<string, Promise<CryptoKey>>();

  constructor(
    private readonly keys: SigningKeys,
    private readonly now: () => number,
  ) {}

  /** Generates the first signing key unless one exists. */
  ensureKey(): void {
    if (!this.keys.active()) this.keys.addFirst(generateSigningKey(), iso(this.now()));
  }

  /** Makes a new key the signing key; returns its kid. Tokens signed before keep verifying. */
  rotate(): string {
    const key = generateSigningKey();
    const now = this.now();
    this.keys.add(key, iso(now), iso(now + (ACCESS_TOKEN_TTL_SECONDS + RETIREMENT_GRACE_SECONDS) * 1000));
    return key.kid;
  }

  /** The key to sign with now. */
  async signingKey(): Promise<{ kid: string; key: CryptoKey }> {
    const active = this.keys.active();
    if (!active) throw new Error('no access-token signing key; the auth service was not opened');
    const key = await this.cachedImport(`private:${active.kid}`, () => {
      const jwk = this.keys.privateJwk(active.kid);
      if (jwk === undefined) throw new Error(`the private half of signing key ${active.kid} is missing from the secrets`);
      return JSON.parse(jwk) as JWK;
    });
    return { kid: active.kid, key };
  }

  /** The public key `kid` names, when it still verifies; UnauthorizedError otherwise. */
  async verificationKey(kid: string | undefined): Promise<CryptoKey> {
    const record = kid === undefined ? undefined : this.keys.get(kid);
    if (!record || !verifiesAt(record, this.now())) throw new UnauthorizedError('the access token was signed by an unknown or retired key; sign in again');
    return this.cachedImport(`public:${record.kid}`, () => JSON.parse(record.publicJwk) as JWK);
  }

  /** The public keys that verify now, for `/.well-known/jwks.json`. */
  jwks(): { keys: JWK[] } {
    return { keys: this.keys.verifying(iso(this.now())).map((k) => JSON.parse(k.publicJwk) as JWK) };
  }

  private cachedImport(cacheKey: string, jwk: () => JWK): Promise<CryptoKey> {
    let key = this.imported.get(cacheKey);
    if (!key) {
      key = importJWK(jwk(), SIGNING_ALG) as Promise<CryptoKey>;
      this.imported.set(cacheKey, key);
      key.catch(() => this.imported.delete(cacheKey));
    }
    return key;
  }
}

function verifiesAt(record: SigningKeyRecord, now: number): boolean {
  return record.retiredAt === null || Date.parse(record.retiredAt) > now;
}

function generateSigningKey(): { kid: string; alg: string; publicJwk: string; privateJwk: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const pub = publicKey.export({ format: 'jwk' });
  const kid = createHash('sha256')
    .update(JSON.stringify({ crv: pub.crv, kty: pub.kty, x: pub.x }))
    .digest('base64url');
  const publicJwk = { kty: pub.kty, crv: pub.crv, x: pub.x, kid, alg: SIGNING_ALG, use: 'sig' };
  return { kid, alg: SIGNING_ALG, publicJwk: JSON.stringify(publicJwk), privateJwk: JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid, alg: SIGNING_ALG }) };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
