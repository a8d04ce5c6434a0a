import { describe, expect, it } from 'vitest';
import { dnsLabel } from './dns-label.js';

const DNS_1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

describe('dnsLabel', () => {
  it('keeps a name that is already a label', () => {
    expect(dnsLabel('my-app-42')).toBe('my-app-42');
  });

  it('lower-cases, turns runs of other characters into one dash and trims dashes at the ends', () => {
    expect(dnsLabel('My App__Prod!')).toBe('my-app-prod');
    expect(dnsLabel(['Shop', 'Postgres'])).toBe('shop-postgres');
    expect(dnsLabel('--api--')).toBe('api');
  });

  it('drops accents rather than the letters that carry them', () => {
    expect(dnsLabel('Café Crème')).toBe('cafe-creme');
  });

  it('cuts at 63 characters without ending on a dash', () => {
    const label = dnsLabel(`${'a'.repeat(62)}-b`);
    expect(label).toBe('a'.repeat(62));
    expect(dnsLabel('x'.repeat(100))).toHaveLength(63);
  });

  it('falls back when nothing usable is left', () => {
    expect(dnsLabel('!!!')).toBe('app');
    expect(dnsLabel('🚀', 'database')).toBe('database');
  });

  it('always yields a DNS-1123 label', () => {
    for (const name of ['A', '9lives', 'snake_case_name', 'a.b.c', ' spaced out ', `${'ab-'.repeat(30)}`]) {
      expect(dnsLabel(name)).toMatch(DNS_1123);
    }
  });
});
