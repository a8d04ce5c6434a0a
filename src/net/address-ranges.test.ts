import { describe, expect, it } from 'vitest';
import { closedRangeOf, embeddedIpv4 } from './address-ranges.js';

describe('closedRangeOf', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.31.255.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.100.100.200', 'shared (carrier-grade NAT)'],
    ['0.0.0.0', '"this network"'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd00:ec2::254', 'unique-local (private)'],
    ['ff02::1', 'multicast'],
  ])('closes %s (%s)', (address, what) => {
    expect(closedRangeOf(address)).toBe(what);
  });

  it.each(['::ffff:127.0.0.1', '::ffff:7f00:1', '64:ff9b::a9fe:a9fe', '2002:a9fe:a9fe::1', '::127.0.0.1'])(
    'judges %s by the IPv4 address it carries',
    (address) => {
      expect(closedRangeOf(address)).toBeDefined();
    },
  );

  it.each(['8.8.8.8', '1.1.1.1', '140.82.112.3', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('leaves the public address %s open', (address) => {
    expect(closedRangeOf(address)).toBeUndefined();
  });

  it('does not take a name for an address', () => {
    expect(closedRangeOf('localhost')).toBe('not an IP address');
  });
});

describe('embeddedIpv4', () => {
  it('reads mapped, NAT64 and 6to4 forms, and nothing from a plain IPv6 address', () => {
    expect(embeddedIpv4('::ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(embeddedIpv4('64:ff9b::0a00:0001')).toBe('10.0.0.1');
    expect(embeddedIpv4('2002:0a00:0001::')).toBe('10.0.0.1');
    expect(embeddedIpv4('2606:4700::1111')).toBeUndefined();
  });
});
