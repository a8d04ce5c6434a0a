/**
 * @module Which IP addresses a tenant's URL may never reach from the control plane: loopback,
 * private, shared (carrier-grade NAT), link-local (where cloud metadata lives), unique-local,
 * multicast, documentation and reserved ranges. IPv6 forms that carry an IPv4 address inside
 * (IPv4-mapped, NAT64, 6to4) are judged by the IPv4 address they carry.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

interface Range {
  network: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
  what: string;
}

const CLOSED_RANGES: readonly Range[] = [
  { network: '0.0.0.0', prefix: 8, family: 'ipv4', what: '"this network"' },
  { network: '10.0.0.0', prefix: 8, family: 'ipv4', what: 'private' },
  { network: '100.64.0.0', prefix: 10, family: 'ipv4', what: 'shared (carrier-grade NAT)' },
  { network: '127.0.0.0', prefix: 8, family: 'ipv4', what: 'loopback' },
  { network: '169.254.0.0', prefix: 16, family: 'ipv4', what: 'link-local (cloud metadata)' },
  { network: '172.16.0.0', prefix: 12, family: 'ipv4', what: 'private' },
  { network: '192.0.0.0', prefix: 24, family: 'ipv4', what: 'IETF protocol assignment' },
  { network: '192.0.2.0', prefix: 24, family: 'ipv4', what: 'documentation' },
  { network: '192.168.0.0', prefix: 16, family: 'ipv4', what: 'private' },
  { network: '198.18.0.0', prefix: 15, family: 'ipv4', what: 'benchmarking' },
  { network: '198.51.100.0', prefix: 24, family: 'ipv4', what: 'documentation' },
  { network: '203.0.113.0', prefix: 24, family: 'ipv4', what: 'documentation' },
  { network: '224.0.0.0', prefix: 4, family: 'ipv4', what: 'multicast' },
  { network: '240.0.0.0', prefix: 4, family: 'ipv4', what: 'reserved' },
  { network: '::', prefix: 128, family: 'ipv6', what: 'unspecified' },
  { network: '::1', prefix: 128, family: 'ipv6', what: 'loopback' },
  { network: '100::', prefix: 64, family: 'ipv6', what: 'discard' },
  { network: '2001::', prefix: 32, family: 'ipv6', what: 'Teredo' },
  { network: '2001:db8::', prefix: 32, family: 'ipv6', what: 'documentation' },
  { network: 'fc00::', prefix: 7, family: 'ipv6', what: 'unique-local (private)' },
  { network: 'fe80::', prefix: 10, family: 'ipv6', what: 'link-local' },
  { network: 'ff00::', prefix: 8, family: 'ipv6', what: 'multicast' },
];

const closed = CLOSED_RANGES.map((range) => {
  const list = new BlockList();
  list.addSubnet(range.network, range.prefix, range.family);
  return { list, range };
});

/** The eight 16-bit groups of an IPv6 address (dotted IPv4 tails included). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -dotted[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

function ipv4From(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The IPv4 address an IPv6 address carries (mapped, NAT64 or 6to4), if any. */
export function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (g.length !== 8) return undefined;
  const zeroUpTo = (n: number): boolean => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(5) && g[5] === 0xffff) return ipv4From(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return ipv4From(g[6]!, g[7]!);
  if (g[0] === 0x2002) return ipv4From(g[1]!, g[2]!);
  if (zeroUpTo(6) && (g[6] !== 0 || g[7]! > 1)) return ipv4From(g[6]!, g[7]!);
  return undefined;
}

/** What closed range `address` is in (`loopback`, `private`, ...), or undefined when it is public. */
export function closedRangeOf(address: string): string | undefined {
  if (isIPv6(address)) {
    const inner = embeddedIpv4(address);
    if (inner !== undefined) return closedRangeOf(inner);
  } else if (!isIPv4(address)) {
    return 'not an IP address';
  }
  const family = isIPv4(address) ? 'ipv4' : 'ipv6';
  return closed.find(({ list, range }) => range.family === family && list.check(address, family))?.range.what;
}
