import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fingerprint, generateKeyPair, InvalidPublicKeyError, parsePublicKey } from './key-pairs.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-ssh-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sshKeygen(...args: string[]): string {
  return execFileSync('ssh-keygen', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The `SHA256:...` word of `ssh-keygen -lf file`. */
function keygenFingerprint(file: string): string {
  return sshKeygen('-l', '-E', 'sha256', '-f', file).split(' ')[1]!;
}

function refusal(text: string): string {
  try {
    parsePublicKey(text);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidPublicKeyError);
    return (error as Error).message;
  }
  throw new Error('parsePublicKey accepted the text');
}

describe('fingerprints and imports of keys made by ssh-keygen', () => {
  const cases = [
    { t: 'ed25519', b: undefined, type: 'ssh-ed25519', algorithm: 'ed25519', bits: 256 },
    { t: 'rsa', b: '2048', type: 'ssh-rsa', algorithm: 'rsa', bits: 2048 },
    { t: 'rsa', b: '3072', type: 'ssh-rsa', algorithm: 'rsa', bits: 3072 },
    { t: 'ecdsa', b: '256', type: 'ecdsa-sha2-nistp256', algorithm: 'ecdsa', bits: 256 },
    { t: 'ecdsa', b: '384', type: 'ecdsa-sha2-nistp384', algorithm: 'ecdsa', bits: 384 },
    { t: 'ecdsa', b: '521', type: 'ecdsa-sha2-nistp521', algorithm: 'ecdsa', bits: 521 },
  ] as const;
  for (const c of cases) {
    it(`reads a ${c.type} key (${c.bits} bits) and fingerprints it as ssh-keygen -l does`, () => {
      const file = join(dir, `${c.t}-${c.bits}`);
      sshKeygen('-q', '-t', c.t, ...(c.b ? ['-b', c.b] : []), '-N', '', '-C', 'me@laptop', '-f', file);
      const text = readFileSync(`${file}.pub`, 'utf8');
      const parsed = parsePublicKey(text);
      expect(parsed).toMatchObject({ type: c.type, algorithm: c.algorithm, bits: c.bits, comment: 'me@laptop', publicKey: text.trim() });
      expect(parsed.fingerprint).toBe(keygenFingerprint(`${file}.pub`));
      expect(fingerprint(text)).toBe(parsed.fingerprint);
      expect(parsed.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    });
  }
});

describe('generated pairs', () => {
  const cases = [
    { options: {}, type: 'ssh-ed25519', algorithm: 'ed25519', bits: 256 },
    { options: { algorithm: 'rsa' }, type: 'ssh-rsa', algorithm: 'rsa', bits: 3072 },
    { options: { algorithm: 'rsa', bits: 4096 }, type: 'ssh-rsa', algorithm: 'rsa', bits: 4096 },
  ] as const;
  for (const c of cases) {
    it(`makes a ${c.algorithm} ${c.bits}-bit pair whose private key ssh-keygen reads back to the same public key and fingerprint`, () => {
      const pair = generateKeyPair({ ...c.options, comment: 'cairn:default/deploy' });
      expect(pair).toMatchObject({ algorithm: c.algorithm, bits: c.bits });
      expect(pair.publicKey).toMatch(new RegExp(`^${c.type} AAAA[A-Za-z0-9+/=]+ cairn:default/deploy$`));
      expect(pair.privateKey).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n[\s\S]+\n-----END OPENSSH PRIVATE KEY-----\n$/);
      const file = join(dir, `generated-${c.algorithm}-${c.bits}`);
      writeFileSync(file, pair.privateKey);
      chmodSync(file, 0o600);
      // -y reads the private key file (it fails on a malformed one) and prints its public key with its comment.
      expect(sshKeygen('-y', '-f', file).trim()).toBe(pair.publicKey);
      writeFileSync(`${file}.pub`, `${pair.publicKey}\n`);
      expect(keygenFingerprint(`${file}.pub`)).toBe(pair.fingerprint);
      expect(keygenFingerprint(file)).toBe(pair.fingerprint);
      expect(parsePublicKey(pair.publicKey)).toMatchObject({ algorithm: c.algorithm, bits: c.bits, fingerprint: pair.fingerprint });
    });
  }

  it('makes a different pair each time', () => {
    expect(generateKeyPair().publicKey).not.toBe(generateKeyPair().publicKey);
  });

  it('refuses sizes it does not make', () => {
    expect(() => generateKeyPair({ algorithm: 'rsa', bits: 2048 as 3072 })).toThrow(/3072 or 4096 bits, not 2048/);
    expect(() => generateKeyPair({ algorithm: 'ed25519', bits: 4096 })).toThrow(/RSA keys only/);
  });
});

describe('refusals of imported keys', () => {
  const ed = generateKeyPair({ comment: 'a@b' });
  const base64 = ed.publicKey.split(' ')[1]!;

  it('refuses a private key pasted by mistake, without repeating it', () => {
    for (const text of [ed.privateKey, generateKeyPairPem(), 'PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\n']) {
      const message = refusal(text);
      expect(message).toMatch(/this is a private key, not a public one/);
      expect(message).not.toContain(text.split('\n')[1]!.slice(0, 20));
    }
  });

  it('refuses DSA with the reason', () => {
    expect(refusal('ssh-dss AAAAB3NzaC1kc3MAAACBAP x@y')).toMatch(/DSA \(ssh-dss\) keys are refused/);
  });

  it('refuses options before the key type', () => {
    expect(refusal(`command="/bin/true",no-pty ${ed.publicKey}`)).toMatch(/starts with authorized_keys options/);
    expect(refusal(`restrict ${ed.publicKey}`)).toMatch(/starts with authorized_keys options/);
  });

  it('refuses more than one line, and nothing', () => {
    expect(refusal(`${ed.publicKey}\n${generateKeyPair().publicKey}\n`)).toMatch(/holds 2 lines; give exactly one public key/);
    expect(refusal('  \n')).toMatch(/the public key is empty/);
    expect(parsePublicKey(`\n${ed.publicKey}\r\n`).fingerprint).toBe(ed.fingerprint);
  });

  it('refuses unknown types, bad base64, a blob of another type, truncated and off-curve keys', () => {
    expect(refusal(`ssh-foo ${base64}`)).toMatch(/the key type "ssh-foo" is not one cairn takes; it takes ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256/);
    expect(refusal(`${base64}`)).not.toContain(base64.slice(0, 20));
    expect(refusal('ssh-ed25519')).toMatch(/has no key data/);
    expect(refusal('ssh-ed25519 AAAA*&^%')).toMatch(/not valid base64/);
    expect(refusal(`ssh-rsa ${base64}`)).toMatch(/its data says it is a ssh-ed25519 key/);
    expect(refusal(`ssh-ed25519 ${Buffer.from(base64, 'base64').subarray(0, 30).toString('base64')}`)).toMatch(/truncated/);
    const badPoint = Buffer.concat([lenPrefixed('ecdsa-sha2-nistp256'), lenPrefixed('nistp256'), lenPrefixed(Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]))]);
    expect(refusal(`ecdsa-sha2-nistp256 ${badPoint.toString('base64')}`)).toMatch(/not on the curve/);
  });

  it('refuses RSA keys under 2048 bits', () => {
    const file = join(dir, 'rsa-1024');
    sshKeygen('-q', '-t', 'rsa', '-b', '1024', '-N', '', '-f', file);
    expect(refusal(readFileSync(`${file}.pub`, 'utf8'))).toMatch(/the ssh-rsa key has 1024 bits; cairn takes RSA keys of at least 2048 bits/);
  });
});

function lenPrefixed(value: string | Buffer): Buffer {
  const bytes = Buffer.from(value);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

function generateKeyPairPem(): string {
  const file = join(dir, 'pem-rsa');
  rmSync(file, { force: true });
  sshKeygen('-q', '-t', 'rsa', '-b', '2048', '-m', 'PEM', '-N', '', '-f', file);
  return readFileSync(file, 'utf8');
}
