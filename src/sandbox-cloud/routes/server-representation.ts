/**
 * @module A sandbox server as the API shows it (snake_case, status computed at read time), and
 * how a power change moves a server through its transitional statuses.
 */
import { simulatedIpv4, simulatedIpv6 } from '../addresses.js';
import type { ServerChange, ServerRow } from '../store/servers-table.js';
import { isBusy, startTransition, statusAt } from '../transitions.js';

export interface ServerBody {
  id: string;
  name: string;
  client_token: string;
  region: string;
  size: string;
  image: string;
  status: string;
  ipv4: string;
  ipv6: string;
  created_at: string;
}

export function serverBody(row: ServerRow, nowMs: number): ServerBody {
  return {
    id: row.id,
    name: row.name,
    client_token: row.client_token,
    region: row.region,
    size: row.size,
    image: row.image,
    status: statusAt(row, row.power, nowMs),
    ipv4: simulatedIpv4(row.id),
    ipv6: simulatedIpv6(row.id),
    created_at: new Date(row.created_at_ms).toISOString(),
  };
}

export type PowerTarget = 'running' | 'stopped' | 'reboot';

/**
 * The change a power request makes. While a server is still provisioning only its final power
 * state changes; otherwise it passes through starting / stopping / rebooting for `durationMs`.
 * Asking for the state it is already settled in changes nothing.
 */
export function powerChange(row: ServerRow, target: PowerTarget, nowMs: number, durationMs: number): ServerChange {
  const power = target === 'stopped' ? 'stopped' : 'running';
  if (row.busy_status === 'provisioning' && isBusy(row, nowMs)) return { power };
  if (target === 'reboot') return { power, ...startTransition('rebooting', nowMs, durationMs) };
  if (row.power === power && !isBusy(row, nowMs)) return {};
  return { power, ...startTransition(power === 'running' ? 'starting' : 'stopping', nowMs, durationMs) };
}
