/**
 * @module The operator's one switch over the outbound guard: CAIRN_ALLOW_PRIVATE_ENDPOINTS is
 * `true` (every address may be reached: tests, local demos) or a comma list of CIDRs that may be
 * reached although closed (a vendor endpoint on the private network); unset, no closed address
 * may be reached. Read on each use, so the operator's environment is the one truth.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { closedRangeOf } from './address-ranges.js';

export const ALLOW_PRIVATE_SETTING = 'CAIRN_ALLOW_PRIVATE_ENDPOINTS';

export interface OutboundPolicy {
  /** Every address may be reached. */
  allowAll: boolean;
  /** Closed addresses the operator opened. */
  opened: BlockList;
  /** The CIDRs given, for messages. */
  openedCidrs: readonly string[];
}

/** The setting's value is not `true` or a list of CIDRs. */
export class OutboundPolicyError extends Error {
  override readonly name = 'OutboundPolicyError';
}

function parseCidr(text: string, list: BlockList): void {
  const [network, prefixText, extra] = text.split('/');
  const family = network !== undefined && isIPv4(network) ? 'ipv4' : network !== undefined && isIPv6(network) ? 'ipv6' : undefined;
  const max = family === 'ipv4' ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (family === undefined || extra !== undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > max) {
    throw new OutboundPolicyError(`${ALLOW_PRIVATE_SETTING}: "${text}" is not an IP address or CIDR (e.g. 10.0.0.0/8, fd00::/8); use \`true\` to open every address`);
  }
  list.addSubnet(network!, prefix, family);
}

/** Parses the setting; throws OutboundPolicyError naming the bad entry. */
export function parseOutboundPolicy(value: string | undefined): OutboundPolicy {
  const text = (value ?? '').trim();
  const opened = new BlockList();
  if (text === '' || text.toLowerCase() === 'false') return { allowAll: false, opened, openedCidrs: [] };
  if (text.toLowerCase() === 'true') return { allowAll: true, opened, openedCidrs: [] };
  const cidrs = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const cidr of cidrs) parseCidr(cidr, opened);
  return { allowAll: false, opened, openedCidrs: cidrs };
}

let cached: { value: string | undefined; policy: OutboundPolicy } | undefined;

/** The policy the environment sets now. */
export function currentOutboundPolicy(env: NodeJS.ProcessEnv = process.env): OutboundPolicy {
  const value = env[ALLOW_PRIVATE_SETTING];
  if (env !== process.env) return parseOutboundPolicy(value);
  if (cached !== undefined && cached.value === value) return cached.policy;
  const policy = parseOutboundPolicy(value);
  cached = { value, policy };
  return policy;
}

/** Why `address` may not be reached under `policy`, or undefined when it may. */
export function refusalOf(address: string, policy: OutboundPolicy): string | undefined {
  if (policy.allowAll) return undefined;
  const range = closedRangeOf(address);
  if (range === undefined) return undefined;
  const family = isIPv4(address) ? 'ipv4' : 'ipv6';
  if (policy.opened.check(address, family)) return undefined;
  return range;
}
