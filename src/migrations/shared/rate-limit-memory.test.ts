import { describe, expect, it } from 'vitest';
import { NotFoundError, RateLimitedError } from '../../model/errors.js';
import { MAX_REMEMBERED, rateLimitKey, rememberedKeys, refuseWhileLimited, remember } from './rate-limit-memory.js';

describe('rate limit memory', () => {
  it('refuses calls with a limited key until the Retry-After passes, saying how long is left', () => {
    const key = rateLimitKey('Heroku', 'https://api.heroku.example', 'HRKU-one');
    expect(() => refuseWhileLimited('Heroku', key, 1_000)).not.toThrow();
    remember(key, new RateLimitedError('slow down', 120), 1_000);
    const error = (() => { try { refuseWhileLimited('Heroku', key, 31_000); } catch (e) { return e; } return undefined; })();
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterSeconds).toBe(90);
    expect(() => refuseWhileLimited('Heroku', key, 121_000)).not.toThrow();
  });

  it('keeps keys apart and never holds the key itself', () => {
    const one = rateLimitKey('Railway', 'https://b.example', 'token-one');
    const two = rateLimitKey('Railway', 'https://b.example', 'token-two');
    expect(one).not.toContain('token-one');
    remember(one, new RateLimitedError('x', 60), 0);
    expect(() => refuseWhileLimited('Railway', two, 1)).not.toThrow();
    expect(() => refuseWhileLimited('Railway', one, 1)).toThrow(RateLimitedError);
  });

  it('remembers nothing of other errors', () => {
    const key = rateLimitKey('Heroku', 'https://c.example', 'k');
    const error = new NotFoundError('gone');
    expect(remember(key, error, 0)).toBe(error);
    expect(() => refuseWhileLimited('Heroku', key, 1)).not.toThrow();
  });
});

describe('rate limit memory bounds', () => {
  it('holds at most MAX_REMEMBERED keys: the passed ones go first, then the soonest to pass', () => {
    for (let i = 0; i < MAX_REMEMBERED; i++) remember(`k-${i}`, new RateLimitedError('x', i === 5 ? 1 : 600), 10_000);
    remember('latest', new RateLimitedError('x', 600), 10_500);
    expect(rememberedKeys()).toBeLessThanOrEqual(MAX_REMEMBERED);
    // k-5 was the soonest to pass, so it was forgotten; the others still hold.
    expect(() => refuseWhileLimited('Heroku', 'k-5', 10_600)).not.toThrow();
    expect(() => refuseWhileLimited('Heroku', 'k-6', 10_600)).toThrow(RateLimitedError);
    expect(() => refuseWhileLimited('Heroku', 'latest', 10_600)).toThrow(RateLimitedError);
  });
});
