import { describe, expect, it } from 'vitest';
import { VendorRejectedError, VendorUnavailableError } from '../../drivers/errors.js';
import { NotFoundError, ProviderError, RateLimitedError, ValidationError } from '../../model/errors.js';
import { checkedApiKey, platformFailure, rateLimited, refusedApiKey, unknownSubject } from './platform-errors.js';

describe('checkedApiKey', () => {
  it('passes a key through as given', () => {
    expect(checkedApiKey('Heroku', 'HRKU-abc123')).toBe('HRKU-abc123');
  });

  it('refuses a missing, blank or multi-line key on api_key without quoting it', () => {
    for (const bad of [undefined, '', '   ', 'abc\ndef', 'two words']) {
      const error = (() => { try { checkedApiKey('Railway', bad); } catch (e) { return e; } return undefined; })();
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues[0]!.pointer).toBe('/api_key');
      if (typeof bad === 'string' && bad.trim() !== '') expect((error as Error).message).not.toContain(bad);
    }
  });
});

describe('platform failures', () => {
  it('a refused key is a ValidationError on api_key with the platform’s words', () => {
    const error = refusedApiKey('Heroku', 'Invalid credentials provided.');
    expect(error.message).toBe('Heroku refused the API key: Invalid credentials provided.');
    expect(error.issues).toEqual([{ pointer: '/api_key', message: error.message }]);
  });

  it('an unknown app is a NotFoundError naming it', () => {
    const error = unknownSubject('Heroku', 'app "shop"', "Couldn't find that app.");
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toBe('Heroku has no app "shop" this API key can see: Couldn\'t find that app.');
  });

  it('a 429 the kit gave up on is a RateLimitedError with the Retry-After in whole seconds', () => {
    const error = platformFailure('Heroku', new VendorUnavailableError('heroku: list apps: 429 Your account reached the API rate limit', { status: 429, retryAfterMs: 2500 }));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterSeconds).toBe(3);
    expect(rateLimited('Railway', 'slow down', undefined).retryAfterSeconds).toBe(60);
  });

  it('other vendor failures are ProviderErrors keeping the message; cairn errors pass through', () => {
    const failure = platformFailure('Heroku', new VendorRejectedError('heroku: read app "x": 422 bad', { status: 422 }));
    expect(failure).toBeInstanceOf(ProviderError);
    expect(failure.message).toBe('heroku: read app "x": 422 bad');
    expect(platformFailure('Heroku', new VendorUnavailableError('heroku: 503 down', { status: 503 }))).toBeInstanceOf(ProviderError);
    const own = new NotFoundError('x');
    expect(platformFailure('Railway', own)).toBe(own);
    expect(platformFailure('Railway', 'odd').message).toBe('Railway: odd');
  });
});
