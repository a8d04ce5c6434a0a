import { describe, expect, it } from 'vitest';
import { OutboundPolicyError, parseOutboundPolicy, refusalOf } from './outbound-policy.js';

describe('the outbound policy', () => {
  it('closes private addresses when unset or false, and opens every one with true', () => {
    for (const value of [undefined, '', 'false']) expect(refusalOf('127.0.0.1', parseOutboundPolicy(value))).toBe('loopback');
    expect(refusalOf('127.0.0.1', parseOutboundPolicy('true'))).toBeUndefined();
    expect(refusalOf('169.254.169.254', parseOutboundPolicy('TRUE'))).toBeUndefined();
  });

  it('opens only the CIDRs listed', () => {
    const policy = parseOutboundPolicy('10.20.0.0/16, fd00::/8,192.168.1.7');
    expect(refusalOf('10.20.3.4', policy)).toBeUndefined();
    expect(refusalOf('10.21.0.1', policy)).toBe('private');
    expect(refusalOf('fd12::1', policy)).toBeUndefined();
    expect(refusalOf('192.168.1.7', policy)).toBeUndefined();
    expect(refusalOf('192.168.1.8', policy)).toBe('private');
    expect(refusalOf('127.0.0.1', policy)).toBe('loopback');
  });

  it('names the entry it cannot read', () => {
    expect(() => parseOutboundPolicy('10.0.0.0/8,yes')).toThrow(OutboundPolicyError);
    expect(() => parseOutboundPolicy('10.0.0.0/33')).toThrow(/"10.0.0.0\/33" is not an IP address or CIDR/);
  });
});
