/**
 * @module SSH key pairs with node:crypto alone: generating ED25519 and RSA (3072/4096) pairs as
 * OpenSSH writes them (the public key as an `authorized_keys` line, the private key in the
 * unencrypted `openssh-key-v1` format that OpenSSH and ssh2 read), reading a public key a user
 * imports (with refusals that say what is wrong and never repeat the key), and fingerprints
 * exactly as `ssh-keygen -l` prints them (`SHA256:` and the unpadded base64 of the blob's
 * SHA-256).
 */
import { createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { fingerprintOfKeyBlob } from '../ssh/host-keys.js';

/** What cairn generates: ED25519 (the default) or RSA. */
export type GeneratedAlgorithm = 'ed25519' | 'rsa';
/** The RSA sizes cairn generates. */
export const RSA_BITS = [3072, 4096] as const;
export type RsaBits = (typeof RSA_BITS)[number];
/** What a key is, generated or imported. */
export type KeyAlgorithm = GeneratedAlgorithm | 'ecdsa';

/** The public key types cairn imports (the first word of an `authorized_keys` line). */
export const PUBLIC_KEY_TYPES = ['ssh-ed25519', 'ssh-rsa', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521'] as const;
export type PublicKeyType = (typeof PUBLIC_KEY_TYPES)[number];

/** The smallest RSA key cairn imports (OpenSSH refuses smaller ones by default too). */
export const MIN_IMPORTED_RSA_BITS = 2048;

/** A generated pair; `privateKey` is secret. */
export interface SshKeyPair {
  algorithm: GeneratedAlgorithm;
  /** The key size: 256 for ED25519, the modulus size for RSA. */
  bits: number;
  /** One `authorized_keys` line: `ssh-ed25519 AAAA... comment`. */
  publicKey: string;
  /** `-----BEGIN OPENSSH PRIVATE KEY-----` ..., unencrypted, ending with a newline. */
  privateKey: string;
  /** `SHA256:...`, as `ssh-keygen -l` prints it. */
  fingerprint: string;
}

/** A public key read by `parsePublicKey`. */
export interface ParsedPublicKey {
  type: PublicKeyType;
  algorithm: KeyAlgorithm;
  bits: number;
  /** The key blob (the base64 word decoded). */
  blob: Buffer;
  /** The comment after the key, or '' when there is none. */
  comment: string;
  /** The key as one clean `authorized_keys` line: type, base64, and the comment when there is one. */
  publicKey: string;
  fingerprint: string;
}

/** A public key that cannot be imported; the message says why and never contains the key. */
export class InvalidPublicKeyError extends Error {
  override readonly name = 'InvalidPublicKeyError';
}

export interface GenerateOptions {
  algorithm?: GeneratedAlgorithm;
  /** RSA only: 3072 (the default) or 4096. */
  bits?: RsaBits;
  /** The comment of the public key and inside the private key (e.g. `cairn:tenant/name`). */
  comment?: string;
}

/** Generates a pair: ED25519 unless told RSA; RSA is 3072 bits unless told 4096. */
export function generateKeyPair(options: GenerateOptions = {}): SshKeyPair {
  const algorithm = options.algorithm ?? 'ed25519';
  const comment = cleanComment(options.comment ?? '');
  if (algorithm === 'ed25519') {
    if (options.bits !== undefined) throw new RangeError('bits applies to RSA keys only; ED25519 keys are always 256 bits');
    const { privateKey } = generateKeyPairSync('ed25519');
    const jwk = privateKey.export({ format: 'jwk' });
    const pub = b64url(jwk.x);
    const seed = b64url(jwk.d);
    const blob = sshBlob([str('ssh-ed25519'), str(pub)]);
    const secret = [str('ssh-ed25519'), str(pub), str(Buffer.concat([seed, pub]))];
    return finishPair('ed25519', 256, 'ssh-ed25519', blob, secret, comment);
  }
  const bits = options.bits ?? 3072;
  if (!(RSA_BITS as readonly number[]).includes(bits)) throw new RangeError(`RSA keys are ${RSA_BITS.join(' or ')} bits, not ${bits}`);
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: bits, publicExponent: 0x10001 });
  const jwk = privateKey.export({ format: 'jwk' });
  const [n, e, d, p, q, qi] = [jwk.n, jwk.e, jwk.d, jwk.p, jwk.q, jwk.qi].map(b64url) as [Buffer, Buffer, Buffer, Buffer, Buffer, Buffer];
  const blob = sshBlob([str('ssh-rsa'), mpint(e), mpint(n)]);
  // OpenSSH's RSA private section: n, e, d, iqmp (q⁻¹ mod p, which is JWK's qi), p, q.
  const secret = [str('ssh-rsa'), mpint(n), mpint(e), mpint(d), mpint(qi), mpint(p), mpint(q)];
  return finishPair('rsa', bits, 'ssh-rsa', blob, secret, comment);
}

function finishPair(algorithm: GeneratedAlgorithm, bits: number, type: string, blob: Buffer, secret: Buffer[], comment: string): SshKeyPair {
  return {
    algorithm,
    bits,
    publicKey: authorizedKeysLine(type, blob, comment),
    privateKey: openSshPrivateKey(blob, secret, comment),
    fingerprint: fingerprintOfKeyBlob(blob),
  };
}

/** The unencrypted `openssh-key-v1` container of one key (PROTOCOL.key in OpenSSH's sources). */
function openSshPrivateKey(publicBlob: Buffer, secretFields: Buffer[], comment: string): string {
  const check = randomBytes(4);
  const section = [check, check, ...secretFields, str(comment)];
  let length = section.reduce((sum, b) => sum + b.length, 0);
  const padding: number[] = [];
  for (let i = 1; length % 8 !== 0; i++, length++) padding.push(i);
  const body = Buffer.concat([
    Buffer.from('openssh-key-v1\0', 'latin1'),
    str('none'),
    str('none'),
    str(''),
    u32(1),
    str(publicBlob),
    str(Buffer.concat([...section, Buffer.from(padding)])),
  ]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`;
}

/** `SHA256:` and the unpadded base64 of the SHA-256 of the key blob, as `ssh-keygen -l` prints it. */
export function fingerprint(publicKey: string): string {
  return parsePublicKey(publicKey).fingerprint;
}

const TYPE_NAMES = PUBLIC_KEY_TYPES.join(', ');
const PRIVATE_KEY_MARKERS = [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/, /PuTTY-User-Key-File/, /^\s*openssh-key-v1/, /^b3BlbnNzaC1rZXktdjE/m];

/**
 * Reads one public key in `authorized_keys` form (`type base64 [comment]`), for import. Refuses,
 * with a message that names the problem and never repeats the key: an empty text, a private key
 * pasted by mistake, more than one line, options before the key type, DSA and any type other
 * than ssh-ed25519, ssh-rsa (≥ 2048 bits) and ecdsa-sha2-nistp256/384/521, and a key whose
 * base64 does not decode to a well-formed key of its type.
 */
export function parsePublicKey(text: string): ParsedPublicKey {
  if (PRIVATE_KEY_MARKERS.some((marker) => marker.test(text))) {
    throw new InvalidPublicKeyError(
      'this is a private key, not a public one; give the public key (the one line of the .pub file, e.g. ~/.ssh/id_ed25519.pub) ' +
        'and keep the private key to yourself (consider it exposed if it was pasted somewhere shared)',
    );
  }
  if (/----\s*BEGIN SSH2 PUBLIC KEY/.test(text)) {
    throw new InvalidPublicKeyError('this is an RFC 4716 (SSH2) public key; give it in OpenSSH form, one line: `ssh-keygen -i -f key.pub` converts it');
  }
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  if (lines.length === 0) throw new InvalidPublicKeyError('the public key is empty; give one line such as `ssh-ed25519 AAAA... you@host`');
  if (lines.length > 1) {
    throw new InvalidPublicKeyError(`the text holds ${lines.length} lines; give exactly one public key (one line), and make one SSH key per public key`);
  }
  const words = lines[0]!.split(/[ \t]+/);
  const type = words[0]!;
  if (type === 'ssh-dss') {
    throw new InvalidPublicKeyError('DSA (ssh-dss) keys are refused: they are limited to 1024 bits and OpenSSH no longer accepts them; use an ed25519 key (`ssh-keygen -t ed25519`)');
  }
  if (!isPublicKeyType(type)) {
    const laterType = words.slice(1).find((w) => isPublicKeyType(w) || w === 'ssh-dss');
    if (laterType !== undefined || /^(restrict|cert-authority|no-[a-z-]+|[a-z-]+=)/i.test(type)) {
      throw new InvalidPublicKeyError(
        'the line starts with authorized_keys options (such as command="..." or from="...") before the key type; give the key alone: type, base64 and an optional comment',
      );
    }
    const shown = /^[\x21-\x7e]{1,40}$/.test(type) && !/^AAAA/.test(type) ? `"${type}"` : 'that the first word names';
    throw new InvalidPublicKeyError(`the key type ${shown} is not one cairn takes; it takes ${TYPE_NAMES} (and refuses DSA)`);
  }
  const encoded = words[1];
  if (encoded === undefined) throw new InvalidPublicKeyError(`the ${type} key has no key data after its type; give the whole line of the .pub file`);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    throw new InvalidPublicKeyError(`the ${type} key's data (the second word) is not valid base64; it may have been cut or altered in copying`);
  }
  const blob = Buffer.from(encoded, 'base64');
  const comment = words.slice(2).join(' ');
  const { algorithm, bits } = checkBlob(type, blob);
  return {
    type,
    algorithm,
    bits,
    blob,
    comment,
    publicKey: authorizedKeysLine(type, blob, comment),
    fingerprint: fingerprintOfKeyBlob(blob),
  };
}

function isPublicKeyType(word: string): word is PublicKeyType {
  return (PUBLIC_KEY_TYPES as readonly string[]).includes(word);
}

const CURVES = {
  'ecdsa-sha2-nistp256': { curve: 'nistp256', jwk: 'P-256', coordinate: 32, bits: 256 },
  'ecdsa-sha2-nistp384': { curve: 'nistp384', jwk: 'P-384', coordinate: 48, bits: 384 },
  'ecdsa-sha2-nistp521': { curve: 'nistp521', jwk: 'P-521', coordinate: 66, bits: 521 },
} as const;

/** Checks the blob is a well-formed key of `type`; its algorithm and size. */
function checkBlob(type: PublicKeyType, blob: Buffer): { algorithm: KeyAlgorithm; bits: number } {
  const broken = (why: string): InvalidPublicKeyError =>
    new InvalidPublicKeyError(`the ${type} key's data is not a valid ${type} key (${why}); it may have been cut or altered in copying`);
  const reader = new BlobReader(blob, () => broken('it is truncated'));
  const inner = reader.string().toString('latin1');
  if (inner !== type) throw broken(`its data says it is a ${inner.length <= 40 ? inner : 'different'} key`);
  try {
    if (type === 'ssh-ed25519') {
      const pub = reader.string();
      reader.end(() => broken('it has trailing bytes'));
      if (pub.length !== 32) throw broken(`its public point is ${pub.length} bytes, not 32`);
      createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: pub.toString('base64url') }, format: 'jwk' });
      return { algorithm: 'ed25519', bits: 256 };
    }
    if (type === 'ssh-rsa') {
      const e = stripZeros(reader.string());
      const n = stripZeros(reader.string());
      reader.end(() => broken('it has trailing bytes'));
      if (n.length === 0 || e.length === 0) throw broken('its modulus or exponent is empty');
      const bits = bitLength(n);
      if (bits < MIN_IMPORTED_RSA_BITS) {
        throw new InvalidPublicKeyError(`the ssh-rsa key has ${bits} bits; cairn takes RSA keys of at least ${MIN_IMPORTED_RSA_BITS} bits (3072 or more is better, ed25519 better still)`);
      }
      return { algorithm: 'rsa', bits };
    }
    const curve = CURVES[type];
    const name = reader.string().toString('latin1');
    const point = reader.string();
    reader.end(() => broken('it has trailing bytes'));
    if (name !== curve.curve) throw broken(`its curve is not ${curve.curve}`);
    if (point.length !== 1 + 2 * curve.coordinate || point[0] !== 0x04) throw broken('its public point is not an uncompressed point of the curve');
    const x = point.subarray(1, 1 + curve.coordinate).toString('base64url');
    const y = point.subarray(1 + curve.coordinate).toString('base64url');
    createPublicKey({ key: { kty: 'EC', crv: curve.jwk, x, y }, format: 'jwk' });
    return { algorithm: 'ecdsa', bits: curve.bits };
  } catch (error) {
    if (error instanceof InvalidPublicKeyError) throw error;
    throw broken('its public point is not on the curve');
  }
}

class BlobReader {
  private at = 0;
  constructor(private readonly blob: Buffer, private readonly truncated: () => Error) {}

  string(): Buffer {
    if (this.at + 4 > this.blob.length) throw this.truncated();
    const length = this.blob.readUInt32BE(this.at);
    const start = this.at + 4;
    if (start + length > this.blob.length) throw this.truncated();
    this.at = start + length;
    return this.blob.subarray(start, start + length);
  }

  end(trailing: () => Error): void {
    if (this.at !== this.blob.length) throw trailing();
  }
}

function authorizedKeysLine(type: string, blob: Buffer, comment: string): string {
  return comment === '' ? `${type} ${blob.toString('base64')}` : `${type} ${blob.toString('base64')} ${comment}`;
}

/** A comment fit for one line of authorized_keys. */
function cleanComment(comment: string): string {
  return comment.replace(/[\r\n\t]+/g, ' ').trim();
}

function b64url(value: string | undefined): Buffer {
  if (value === undefined) throw new Error('node:crypto exported a key without a component cairn needs');
  return Buffer.from(value, 'base64url');
}

function u32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value);
  return b;
}

/** An SSH `string`: its length, then its bytes. */
function str(value: string | Buffer): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  return Buffer.concat([u32(bytes.length), bytes]);
}

/** An SSH `mpint` of a non-negative big-endian integer: no leading zeros, a 0 byte when the top bit is set. */
function mpint(value: Buffer): Buffer {
  const digits = stripZeros(value);
  return str(digits.length > 0 && digits[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), digits]) : digits);
}

function stripZeros(value: Buffer): Buffer {
  let i = 0;
  while (i < value.length && value[i] === 0) i++;
  return value.subarray(i);
}

function bitLength(digits: Buffer): number {
  return (digits.length - 1) * 8 + (32 - Math.clz32(digits[0]!));
}

function sshBlob(parts: Buffer[]): Buffer {
  return Buffer.concat(parts);
}
