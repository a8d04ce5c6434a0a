import { describe, expect, it } from 'vitest';
import { compareRowCounts, DataCopyError, guardedSource, parsePostgresUrl } from './postgres-copy.js';

describe('postgres copy checks', () => {
  it('fails naming the table whose row count differs', () => {
    const source = new Map([['public.users', 3], ['public.orders', 10]]);
    expect(() => compareRowCounts(source, new Map([['public.users', 3], ['public.orders', 9]]))).toThrow(DataCopyError);
    expect(() => compareRowCounts(source, new Map([['public.users', 3], ['public.orders', 9]]))).toThrow('table public.orders has 10 rows on the platform but 9 in cairn');
    expect(() => compareRowCounts(source, new Map([['public.users', 3]]))).toThrow(/table public.orders .*missing/);
    expect(() => compareRowCounts(source, new Map(source))).not.toThrow();
  });

  it('reads a platform URL, password and sslmode included', () => {
    expect(parsePostgresUrl('postgres://u%40x:p%2Fw@db.example.com:6543/d1?sslmode=require', 'DATABASE_URL')).toEqual({
      host: 'db.example.com', port: 6543, user: 'u@x', password: 'p/w', database: 'd1', sslmode: 'require',
    });
    expect(() => parsePostgresUrl('mysql://u:p@h/d', 'DATABASE_URL')).toThrow(/mysql URL, not a PostgreSQL one/);
  });

  it('refuses a platform database on a private address unless the operator opens it', async () => {
    const saved = process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS;
    try {
      delete process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS;
      await expect(guardedSource('postgres://u:p@10.0.0.5:5432/internal', 'DATABASE_URL')).rejects.toThrow(/does not connect to 10.0.0.5/);
      await expect(guardedSource('postgres://u:p@127.0.0.1:5432/internal', 'DATABASE_URL')).rejects.toThrow(/CAIRN_ALLOW_PRIVATE_ENDPOINTS/);
      process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS = 'true';
      await expect(guardedSource('postgres://u:p@127.0.0.1:5432/internal', 'DATABASE_URL')).resolves.toMatchObject({ hostaddr: '127.0.0.1' });
    } finally {
      if (saved === undefined) delete process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS;
      else process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS = saved;
    }
  });
});
