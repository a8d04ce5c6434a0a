/** @module Tests of password hashing: scrypt parameters kept with the hash, verification, refusal of short passwords. */
import { describe, expect, it } from 'vitest';
import { hashPassword, passwordProblem, verifyPassword } from './passwords.js';

describe('passwords', () => {
  it('are hashed with scrypt N=2^15, r=8, p=1 and a random salt, and verified', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(await hashPassword('correct horse battery staple')).not.toBe(hash);
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', hash)).toBe(false);
  });

  it('verify against the parameters stored with the hash', async () => {
    const cheap = await hashPassword('correct horse battery staple', { N: 1024, r: 8, p: 1 });
    expect(cheap.startsWith('scrypt$1024$8$1$')).toBe(true);
    expect(await verifyPassword('correct horse battery staple', cheap)).toBe(true);
  });

  it('treat the same text in composed and decomposed Unicode as one password', async () => {
    const hash = await hashPassword('pässwörd-long-enough');
    expect(await verifyPassword('pa\u0308sswo\u0308rd-long-enough', hash)).toBe(true);
  });

  it('refuse unreadable or hostile hashes instead of throwing', async () => {
    expect(await verifyPassword('x', '')).toBe(false);
    expect(await verifyPassword('x', 'bcrypt$whatever')).toBe(false);
    expect(await verifyPassword('x', `scrypt$${2 ** 30}$8$1$c2FsdA==$aGFzaGhhc2hoYXNoaGFzaA==`)).toBe(false);
  });

  it('must be at least 12 characters', () => {
    expect(passwordProblem('short')).toBe('the password must be at least 12 characters long (it has 5)');
    expect(passwordProblem('twelve chars')).toBeUndefined();
  });
});
