import { describe, expect, it } from 'vitest';
import type { SecretPurpose, SecretStore } from '../secrets/secret-store.js';
import { sealedEnvOf, sealEnv, SealedEnvError, SEALED_ENV_ANNOTATION } from './sealed-env.js';

/** A secret store in memory, keyed as the real one is (tenant, purpose, name). */
class MemorySecrets implements SecretStore {
  readonly values = new Map<string, string>();
  private key(t: string, p: SecretPurpose, n: string): string {
    return JSON.stringify([t, p, n]);
  }
  put(t: string, p: SecretPurpose, n: string, v: string): void {
    this.values.set(this.key(t, p, n), v);
  }
  putIfAbsent(t: string, p: SecretPurpose, n: string, v: string): boolean {
    if (this.values.has(this.key(t, p, n))) return false;
    this.put(t, p, n, v);
    return true;
  }
  get(t: string, p: SecretPurpose, n: string): string | undefined {
    return this.values.get(this.key(t, p, n));
  }
  delete(t: string, p: SecretPurpose, n: string): void {
    this.values.delete(this.key(t, p, n));
  }
}

describe('sealed env', () => {
  it('gives an App the env sealed under the migration its annotation names, in its own tenant only', () => {
    const secrets = new MemorySecrets();
    sealEnv(secrets, 't1', 'm-1', 'shop', { GREETING: 'hello', API_TOKEN: 's3cret' });
    const app = { tenant: 't1', name: 'shop', annotations: { [SEALED_ENV_ANNOTATION]: 'm-1' } };
    expect(sealedEnvOf(secrets, app)).toEqual({ GREETING: 'hello', API_TOKEN: 's3cret' });
    expect(() => sealedEnvOf(secrets, { ...app, tenant: 't2' })).toThrow(SealedEnvError);
    expect(() => sealedEnvOf(secrets, { ...app, name: 'other' })).toThrow(/holds no sealed environment for this app/);
  });

  it('gives nothing to an App without the annotation', () => {
    expect(sealedEnvOf(new MemorySecrets(), { tenant: 't1', name: 'shop', annotations: {} })).toEqual({});
  });

  it('refuses names that cannot be environment variables, sealing nothing', () => {
    const secrets = new MemorySecrets();
    expect(() => sealEnv(secrets, 't1', 'm-1', 'shop', { 'BAD-NAME': 'x' })).toThrow(/"BAD-NAME"/);
    expect(secrets.values.size).toBe(0);
  });
});
