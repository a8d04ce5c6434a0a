import { describe, expect, it } from 'vitest';
import { Scrollback } from './scrollback.js';

describe('Scrollback', () => {
  it('keeps everything below its capacity, in order', () => {
    const s = new Scrollback(8);
    s.push(Buffer.from('abc'));
    s.push(Buffer.from('de'));
    expect(s.contents().toString()).toBe('abcde');
  });

  it('keeps the last bytes when output wraps around, and when one chunk is larger than the ring', () => {
    const s = new Scrollback(8);
    s.push(Buffer.from('abcdef'));
    s.push(Buffer.from('ghij'));
    expect(s.contents().toString()).toBe('cdefghij');
    s.push(Buffer.from('0123456789XY'));
    expect(s.contents().toString()).toBe('456789XY');
    s.push(Buffer.from('z'));
    expect(s.contents().toString()).toBe('56789XYz');
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new Scrollback(0)).toThrow(/positive integer/);
  });
});
