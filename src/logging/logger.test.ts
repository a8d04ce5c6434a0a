/**
 * @module Tests of the logger: secrets never reach the output, wherever a log call puts them;
 * the level comes from CAIRN_LOG_LEVEL.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createLogger, logLevelFromEnv, REDACTED, type LogLevel } from './logger.js';

function capture(level?: LogLevel): { lines: () => Array<Record<string, unknown>>; text: () => string; logger: ReturnType<typeof createLogger> } {
  const chunks: string[] = [];
  const logger = createLogger({ level, destination: { write: (chunk: string) => void chunks.push(chunk) } });
  return {
    logger,
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('createLogger', () => {
  it('censors passwords, tokens, credentials, headers and other secrets, keeping the rest', () => {
    const log = capture();
    log.logger.info(
      {
        email: 'ops@example.com',
        password: 'pw-top-level',
        access_token: 'at-top-level',
        refresh_token: 'rt-top-level',
        token: 'tok-top-level',
        user: { email: 'a@example.com', password: 'pw-nested' },
        body: { credentials: { api_token: 'cred-nested' }, webhook_secret: 'whs-nested', connection_string: 'postgresql://u:cs-nested@h/db' },
        provider: { config: { api_key: 'key-two-deep', token: 'tok-two-deep' } },
        headers: { authorization: 'Bearer hdr-secret', cookie: 'sid=cookie-secret', accept: 'application/json' },
        req: { headers: { authorization: 'Bearer req-hdr-secret', 'x-api-key': 'xkey-secret' } },
        res: { headers: { 'set-cookie': 'sid=set-cookie-secret' } },
      },
      'signed in',
    );
    const text = log.text();
    for (const secret of ['pw-', 'at-top', 'rt-top', 'tok-', 'cred-nested', 'whs-nested', 'cs-nested', 'key-two-deep', 'hdr-secret', 'cookie-secret', 'xkey-secret']) {
      expect(text).not.toContain(secret);
    }
    const [line] = log.lines();
    expect(line).toMatchObject({
      level: 'info',
      msg: 'signed in',
      email: 'ops@example.com',
      password: REDACTED,
      user: { email: 'a@example.com', password: REDACTED },
      body: { credentials: REDACTED },
      headers: { authorization: REDACTED, accept: 'application/json' },
    });
  });

  it('censors secrets however deep, in arrays too, without touching the caller\'s objects', () => {
    const log = capture();
    const body = { manifests: [{ spec: { provider: { config: { Password: 'pw-deep', region: 'eu-1' } } } }, { env: [{ api_key: 'key-in-array' }] }] };
    const before = JSON.stringify(body);
    log.logger.warn({ body }, 'rejected');
    expect(log.text()).not.toContain('pw-deep');
    expect(log.text()).not.toContain('key-in-array');
    expect(log.lines()[0]).toMatchObject({ body: { manifests: [{ spec: { provider: { config: { Password: REDACTED, region: 'eu-1' } } } }, { env: [{ api_key: REDACTED }] }] } });
    expect(JSON.stringify(body)).toBe(before);
  });

  it('censors secrets bound to a child logger', () => {
    const log = capture();
    log.logger.child({ tenant: 'acme', token: 'tok-bound' }).info('child line');
    expect(log.text()).not.toContain('tok-bound');
    expect(log.lines()[0]).toMatchObject({ tenant: 'acme', token: REDACTED, msg: 'child line' });
  });

  it('censors the secret headers of a raw request or response logged as it is, and drops the query string', async () => {
    const log = capture();
    const server = createServer((req, res) => {
      res.setHeader('set-cookie', 'sid=set-cookie-secret');
      log.logger.info({ req, res }, 'raw');
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await fetch(`http://127.0.0.1:${port}/api/v1/servers?token=query-secret`, { headers: { authorization: 'Bearer secret123', cookie: 'sid=cookie-secret', 'x-trace': 'kept' } });
    await new Promise((resolve) => server.close(resolve));
    const text = log.text();
    for (const secret of ['secret123', 'cookie-secret', 'query-secret']) expect(text).not.toContain(secret);
    expect(log.lines()[0]).toMatchObject({
      req: { method: 'GET', url: '/api/v1/servers', headers: { authorization: REDACTED, cookie: REDACTED, 'x-trace': 'kept' } },
      res: { headers: { 'set-cookie': REDACTED } },
    });
  });

  it('writes nothing below its level, and nothing at all when silent', () => {
    const info = capture('info');
    info.logger.debug('hidden');
    info.logger.info('shown');
    expect(info.lines().map((l) => l.msg)).toEqual(['shown']);
    const silent = capture('silent');
    silent.logger.error('nobody hears this');
    expect(silent.text()).toBe('');
  });
});

describe('logLevelFromEnv', () => {
  it('defaults to info and takes any pino level or silent', () => {
    expect(logLevelFromEnv({})).toBe('info');
    expect(logLevelFromEnv({ CAIRN_LOG_LEVEL: 'silent' })).toBe('silent');
    expect(logLevelFromEnv({ CAIRN_LOG_LEVEL: ' Debug ' })).toBe('debug');
  });

  it('refuses a level it does not know, naming the ones it does', () => {
    expect(() => logLevelFromEnv({ CAIRN_LOG_LEVEL: 'verbose' })).toThrow('CAIRN_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "verbose"');
  });
});
