/**
 * @module How vendors' answers are read into cairn's messages: a vendor's text quoted on one
 * line and cut short (never relayed whole), a failed request's cause named, and the headers
 * that tell cairn when to come back (`Retry-After`, `RateLimit-Reset`).
 */

/** A vendor's text, one line and at most 200 characters: what it says is quoted, never relayed whole. */
export function summarise(text: string): string {
  const line = [...text].map((c) => (c < ' ' || c === '\u007f' ? ' ' : c)).join('').replace(/ +/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** What made a request fail before any answer, with the system's code when there is one. */
export function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return code ? `${error.message} (${code}: ${cause.message})` : `${error.message} (${cause.message})`;
  }
  return error.message;
}

/** `Retry-After` as milliseconds: delay-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, nowMs = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * `RateLimit-Reset` as an epoch time in ms. Vendors send either a Unix timestamp (Hetzner,
 * DigitalOcean) or, as the IETF draft says, seconds from now; a number past 10⁹ is a timestamp.
 */
export function parseRateLimitReset(value: string | null, nowMs = Date.now()): number | undefined {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  const n = Number(value.trim());
  return n > 1e9 ? n * 1000 : nowMs + n * 1000;
}
