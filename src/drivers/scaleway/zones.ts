/**
 * @module Scaleway's availability zones, which are cairn's regions there. Scaleway's Instance API
 * has no endpoint that lists them: every path takes the zone as a parameter, and its document
 * gives that parameter's values as an enum. This list is that enum (a test holds it to the
 * document), with each zone's city spelt out.
 */

const CITIES: Record<string, string> = { 'fr-par': 'Paris', 'nl-ams': 'Amsterdam', 'pl-waw': 'Warsaw', 'it-mil': 'Milan' };

/** The `zone` enum of scaleway.instance.v1.Api.yml, in its order. */
export const ZONES: readonly string[] = ['fr-par-1', 'fr-par-2', 'fr-par-3', 'nl-ams-1', 'nl-ams-2', 'nl-ams-3', 'pl-waw-1', 'pl-waw-2', 'pl-waw-3', 'it-mil-1'];

/** `fr-par-2` → `Paris 2`. */
export function zoneName(zone: string): string {
  const match = /^([a-z]{2}-[a-z]{3})-(\d+)$/.exec(zone);
  const city = match ? CITIES[match[1] ?? ''] : undefined;
  return city === undefined || !match ? zone : `${city} ${match[2] ?? ''}`;
}
