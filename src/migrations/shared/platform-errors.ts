/**
 * @module How a migration platform's failures become cairn's errors (platform.ts): a refused
 * API key is a ValidationError on `api_key`, an app or project the platform does not know a
 * NotFoundError, its rate limit a RateLimitedError with the platform's Retry-After, anything
 * else (5xx, an answer cairn cannot read, a refused connection) a ProviderError with the
 * platform's own words. No message ever carries the API key: the key is checked here for
 * shape without being quoted, and the platforms' messages are quoted cut short, one line.
 */
import { VendorRejectedError, VendorUnavailableError } from '../../drivers/errors.js';
import { summarise } from '../../drivers/kit/vendor-text.js';
import { CairnError, NotFoundError, ProviderError, RateLimitedError, ValidationError } from '../../model/errors.js';

/** The platform's name as users read it: `Heroku`, `Railway`. */
export type PlatformName = 'Heroku' | 'Railway';

/** When a 429 says nothing about when to come back. */
const DEFAULT_RETRY_AFTER_SECONDS = 60;

/** The API key as given, refused (without quoting it) unless it is a non-empty single line. */
export function checkedApiKey(platform: PlatformName, apiKey: unknown): string {
  const issue = (message: string): ValidationError => new ValidationError(`api_key: ${message}`, [{ pointer: '/api_key', message }]);
  if (typeof apiKey !== 'string' || apiKey.trim() === '') throw issue(`a ${platform} API key is required`);
  if ([...apiKey].some((c) => c <= ' ' || c === '\u007f')) throw issue(`a ${platform} API key is one word, without spaces or control characters`);
  return apiKey;
}

/** The platform refused the key: a ValidationError on `api_key` carrying the platform's message. */
export function refusedApiKey(platform: PlatformName, message: string): ValidationError {
  const said = `${platform} refused the API key: ${summarise(message)}`;
  return new ValidationError(said, [{ pointer: '/api_key', message: said }]);
}

/** The platform does not know `what` (`app "shop"`, `project "p-1"`), as it said. */
export function unknownSubject(platform: PlatformName, what: string, message?: string): NotFoundError {
  return new NotFoundError(`${platform} has no ${what} this API key can see${message === undefined ? '' : `: ${summarise(message)}`}`);
}

/** A 429 the kit gave up waiting for: a RateLimitedError with the platform's Retry-After. */
export function rateLimited(platform: PlatformName, message: string, retryAfterMs: number | undefined): RateLimitedError {
  const seconds = retryAfterMs === undefined ? DEFAULT_RETRY_AFTER_SECONDS : Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new RateLimitedError(`${platform} is rate limiting this API key (${summarise(message)}); try again in ${seconds} s`, seconds);
}

/** Any failure of a call to the platform as one of cairn's errors; cairn's own errors pass through. */
export function platformFailure(platform: PlatformName, error: unknown): Error {
  if (error instanceof CairnError) return error;
  if (error instanceof VendorUnavailableError && error.status === 429) return rateLimited(platform, error.message, error.retryAfterMs);
  if (error instanceof VendorUnavailableError || error instanceof VendorRejectedError) return new ProviderError(error.message);
  if (error instanceof Error && error.name === 'AbortError') return error;
  return new ProviderError(`${platform}: ${error instanceof Error ? error.message : String(error)}`);
}
