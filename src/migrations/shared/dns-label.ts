/**
 * @module A platform's name (a Heroku app or add-on, a Railway project or service) as a cairn
 * resource name: a DNS-1123 label (lower-case letters, digits and '-', starting and ending with
 * a letter or digit, at most 63 characters), so the resources a migration creates pass cairn's
 * metadata schema whatever the platform allowed.
 */

const MAX_LABEL = 63;

/** `parts` joined with '-' and made a DNS-1123 label; `fallback` when nothing usable is left (a name of only symbols). */
export function dnsLabel(parts: readonly string[] | string, fallback = 'app'): string {
  const text = (typeof parts === 'string' ? [parts] : parts).join('-');
  const label = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_LABEL)
    .replace(/-+$/, '');
  return label === '' ? fallback : label;
}
