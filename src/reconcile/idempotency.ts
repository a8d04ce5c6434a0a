/**
 * @module The deterministic idempotency key a resource is created under at the vendor (its
 * client token): derived from the uid and the incarnation, which is bumped each time the
 * resource is replaced or recreated, so a recreate never collides with a deleted predecessor.
 */

export function idempotencyKey(uid: string, incarnation: number): string {
  return `cairn-${uid}-${incarnation}`;
}
