/**
 * @module The TLS identity of `cairn serve --tls`: a self-signed certificate for loopback made
 * once and reused, a given pair read as is, and clear errors for half a pair or a missing file.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tlsIdentity } from './serve-tls.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-tls-'));

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('tlsIdentity', () => {
  it('makes a certificate for loopback once, with a private key only its owner reads, and reuses it', async () => {
    const first = await tlsIdentity(dir, '127.0.0.1', {});
    expect(first.generated).toBe(true);
    const cert = new X509Certificate(first.cert);
    expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(cert.subjectAltName).toContain('DNS:localhost');
    expect(cert.checkPrivateKey(createPrivateKey(first.key))).toBe(true);
    expect(statSync(join(dir, 'tls', 'server.key')).mode & 0o777).toBe(0o600);
    const again = await tlsIdentity(dir, '127.0.0.1', {});
    expect(again.generated).toBe(false);
    expect(again.cert).toBe(first.cert);
  });

  it('reads a given pair, and refuses half a pair or a file it cannot read', async () => {
    const certPath = join(dir, 'tls', 'server.crt');
    const keyPath = join(dir, 'tls', 'server.key');
    expect((await tlsIdentity(join(dir, 'elsewhere'), '127.0.0.1', { cert: certPath, key: keyPath })).certPath).toBe(certPath);
    await expect(tlsIdentity(dir, '127.0.0.1', { cert: certPath })).rejects.toThrow('--tls-cert and --tls-key go together');
    await expect(tlsIdentity(dir, '127.0.0.1', { cert: join(dir, 'missing.crt'), key: keyPath })).rejects.toThrow(`cannot read the TLS certificate ${join(dir, 'missing.crt')}`);
  });
});
