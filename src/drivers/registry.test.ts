/**
 * @module Tests of the vendor registry: sandbox is there, an unknown vendor is refused by name.
 */
import { describe, expect, it } from 'vitest';
import { UnsupportedError } from './errors.js';
import { getVendor, vendors } from './registry.js';
import { sandboxVendor } from './sandbox/index.js';

describe('vendor registry', () => {
  it('serves the sandbox vendor by its id', () => {
    expect(getVendor('sandbox')).toBe(sandboxVendor);
    expect([...vendors.keys()]).toEqual(['sandbox']);
  });

  it('refuses an unknown vendor and lists the supported ones', () => {
    expect(() => getVendor('aws')).toThrow(UnsupportedError);
    expect(() => getVendor('aws')).toThrow('unknown vendor "aws": supported vendors are sandbox');
  });
});
