/** @module Tests of scrubSecrets: what counts as secret, at what depth, and that callers' objects stay as they were. */
import { describe, expect, it } from 'vitest';
import { scrubSecrets } from './scrub-secrets.js';

describe('scrubSecrets', () => {
  it('censors secret fields in any case, whole values included, and header secrets only inside headers', () => {
    const scrubbed = scrubSecrets(
      {
        API_KEY: 'k',
        Credentials: { user: 'u', secret: 's' },
        headers: { Authorization: 'Bearer t', 'Set-Cookie': 'a=b', accept: '*/*' },
        cookie: 'chocolate chip',
        tokens_issued: 3,
      },
      'X',
    );
    expect(scrubbed).toEqual({ API_KEY: 'X', Credentials: 'X', headers: { Authorization: 'X', 'Set-Cookie': 'X', accept: '*/*' }, cookie: 'chocolate chip', tokens_issued: 3 });
  });

  it('leaves the caller\'s objects as they were and returns them as they are when nothing is secret', () => {
    const clean = { a: { b: [1, { c: 'd' }] } };
    expect(scrubSecrets(clean, 'X')).toBe(clean);
    const nested = { keep: { same: true }, list: [{ password: 'p' }] };
    const scrubbed = scrubSecrets(nested, 'X');
    expect(scrubbed).toEqual({ keep: { same: true }, list: [{ password: 'X' }] });
    expect(scrubbed.keep).toBe(nested.keep);
    expect(nested.list[0]?.password).toBe('p');
  });

  it('leaves class instances alone (their serializers decide) and stops at a cycle', () => {
    class Session {
      token = 'inside-an-instance';
    }
    const session = new Session();
    expect(scrubSecrets({ session }, 'X').session).toBe(session);
    const cyclic: Record<string, unknown> = { password: 'p' };
    cyclic.self = cyclic;
    expect(() => scrubSecrets(cyclic, 'X')).not.toThrow();
    expect(scrubSecrets(cyclic, 'X').password).toBe('X');
  });
});
