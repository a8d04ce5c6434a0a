/**
 * @module How server events name the vendor: an ssh provider's say that deleting only forgets the host.
 */
import { describe, expect, it } from 'vitest';
import { serverVendorLabel } from './reconcile-server.js';

describe('serverVendorLabel', () => {
  it('says of an ssh provider that deleting forgets the host and leaves it to its owner', () => {
    expect(serverVendorLabel({ name: 'byo', spec: { vendor: 'ssh' } })).toBe('ssh (Provider/byo: an existing host, which deleting only forgets; the host itself is yours)');
    expect(serverVendorLabel({ name: 'cloud', spec: { vendor: 'hetzner' } })).toBe('hetzner (Provider/cloud)');
  });
});
