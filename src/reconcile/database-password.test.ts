/**
 * @module cairn's generated database passwords meet the strictest rule a vendor sets (Scaleway's
 * managed databases: a digit, an upper-case and a lower-case letter and a special character),
 * while staying 32 URL-safe characters.
 */
import { describe, expect, it } from 'vitest';
import { generatePassword } from './database-password.js';

describe('generatePassword', () => {
  it('always gives 32 URL-safe characters with a digit, both cases and a - or _, all different', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const password = generatePassword();
      expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect([/[0-9]/, /[A-Z]/, /[a-z]/, /[-_]/].every((c) => c.test(password)), password).toBe(true);
      seen.add(password);
    }
    expect(seen.size).toBe(2000);
  });
});
