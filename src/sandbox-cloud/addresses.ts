/**
 * @module Addresses of sandbox servers: deterministic per server id, drawn only from ranges
 * reserved for documentation (198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32), so nothing
 * ever mistakes them for reachable hosts.
 */
import { createHash } from 'node:crypto';

function digest(id: string): Buffer {
  return createHash('sha256').update(id).digest();
}

/** 198.51.100.x or 203.0.113.x, x in 1..254. */
export function simulatedIpv4(serverId: string): string {
  const bytes = digest(serverId);
  const prefix = (bytes[0] ?? 0) % 2 === 0 ? '198.51.100' : '203.0.113';
  return `${prefix}.${((bytes[1] ?? 0) % 254) + 1}`;
}

/** 2001:db8:xxxx:xxxx::1 */
export function simulatedIpv6(serverId: string): string {
  const hex = digest(serverId).toString('hex');
  return `2001:db8:${hex.slice(4, 8)}:${hex.slice(8, 12)}::1`;
}
