/**
 * @module Tests of the sandbox's password hashes: salted (the same password hashes differently),
 * free of the password, verified only by the right password, and a malformed hash lets no one in.
 */
import { describe, expect, it } from 'vitest';
import { hashPassword, hashPasswordOffLoop, verifyPassword } from './database-passwords.js';

describe('sandbox database passwords', () => {
  it('hashes with a fresh salt and verifies only the right password', () => {
    const first = hashPassword('correct-horse-battery');
    const second = hashPassword('correct-horse-battery');
    expect(first).toMatch(/^scrypt\$1024\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('correct-horse');
    expect(verifyPassword('correct-horse-battery', first)).toBe(true);
    expect(verifyPassword('correct-horse-battery', second)).toBe(true);
    expect(verifyPassword('correct-horse-batterY', first)).toBe(false);
  });

  it('hashes the same way off the event loop, for request handlers', async () => {
    const offLoop = await hashPasswordOffLoop('correct-horse-battery');
    expect(offLoop).toMatch(/^scrypt\$1024\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(offLoop).not.toBe(await hashPasswordOffLoop('correct-horse-battery'));
    expect(verifyPassword('correct-horse-battery', offLoop)).toBe(true);
    expect(verifyPassword('correct-horse-batterY', offLoop)).toBe(false);
  });

  it('lets no one in with a malformed hash', () => {
    for (const stored of ['', 'plain-text-password', 'scrypt$1024$8$1$c2FsdA$', 'bcrypt$1$2$3$c2FsdA$aGFzaA', 'scrypt$x$8$1$c2FsdA$aGFzaA']) {
      expect(verifyPassword('plain-text-password', stored)).toBe(false);
    }
  });
});
