/** @module Tests of connection strings: the seed's shapes, and passwords that need escaping still parse back. */
import { describe, expect, it } from 'vitest';
import { connectionString } from './connection-string.js';

const endpoint = { host: '10.0.0.7', port: 5432, username: 'shop', database: 'shop_db' };

describe('connectionString', () => {
  it('writes postgresql://user:pass@host:port/name and mongodb://...', () => {
    expect(connectionString('postgresql', endpoint, 'Secret123')).toBe('postgresql://shop:Secret123@10.0.0.7:5432/shop_db');
    expect(connectionString('mongodb', { ...endpoint, port: 27017 }, 'Secret123')).toBe('mongodb://shop:Secret123@10.0.0.7:27017/shop_db');
  });

  it('escapes user and password so a client reads back exactly what was stored', () => {
    const password = 'p@ss:w/o#rd?%&=';
    const url = new URL(connectionString('postgresql', { ...endpoint, username: 'app user' }, password));
    expect(decodeURIComponent(url.password)).toBe(password);
    expect(decodeURIComponent(url.username)).toBe('app user');
    expect(url.hostname).toBe('10.0.0.7');
    expect(url.port).toBe('5432');
    expect(url.pathname).toBe('/shop_db');
  });

  it('writes mongodb+srv://user:pass@host/name, without a port, for a MongoDB host that is an SRV name (Atlas)', () => {
    const srv = { host: 'cairn-0123456789abcdef.ab1cd.mongodb.net', port: 27017, username: 'cairn-0123456789abcdef', database: 'admin', srv: true };
    expect(connectionString('mongodb', srv, 'p@ss')).toBe('mongodb+srv://cairn-0123456789abcdef:p%40ss@cairn-0123456789abcdef.ab1cd.mongodb.net/admin');
    expect(connectionString('postgresql', srv, 'x'), 'SRV is MongoDB’s').toBe('postgresql://cairn-0123456789abcdef:x@cairn-0123456789abcdef.ab1cd.mongodb.net:27017/admin');
  });

  it('brackets an IPv6 host', () => {
    const url = new URL(connectionString('postgresql', { ...endpoint, host: '2001:db8::7' }, 'x'));
    expect(url.hostname).toBe('[2001:db8::7]');
  });
});
