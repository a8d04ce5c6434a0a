import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { SshConnections } from './connection-pool.js';
import { MemoryHostKeyPins } from './host-keys.js';

describe('SshConnections before connecting', () => {
  const pool = new SshConnections();
  afterEach(async () => {
    await pool.close();
  });

  it('refuses a PKCS#8 private key, saying which formats it reads, without connecting', async () => {
    const { privateKey } = generateKeyPairSync('ed25519', { privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    await expect(pool.session({ host: '127.0.0.1', port: 1, user: 'root' }, { privateKey }, new MemoryHostKeyPins())).rejects.toThrow(/PKCS#8 PEM.*BEGIN OPENSSH PRIVATE KEY/);
    expect(pool.connectsMade).toBe(0);
  });
});
