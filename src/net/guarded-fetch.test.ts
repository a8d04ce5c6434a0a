import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { guardedFetch, OutboundRefusedError, outboundRefusal } from './guarded-fetch.js';
import { guardedGitHttp } from './guarded-git-http.js';
import { ALLOW_PRIVATE_SETTING } from './outbound-policy.js';

/** A loopback listener that counts what reaches it; `redirectTo` makes it answer 302 there. */
async function listener(host: string, redirectTo?: () => string): Promise<{ server: Server; url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits++;
    if (redirectTo) res.writeHead(302, { location: redirectTo() }).end();
    else res.end('secret internal answer');
  });
  await new Promise<void>((done) => server.listen(0, host, done));
  return { server, url: `http://${host}:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

async function refusalOf(call: Promise<unknown>): Promise<OutboundRefusedError | undefined> {
  try {
    await call;
  } catch (error) {
    return outboundRefusal(error);
  }
  return undefined;
}

let internal: Awaited<ReturnType<typeof listener>>;
let bouncer: Awaited<ReturnType<typeof listener>>;

beforeAll(async () => {
  internal = await listener('127.0.0.1');
  bouncer = await listener('127.0.0.2', () => `${internal.url}/after-redirect`);
});
afterAll(() => {
  internal.server.close();
  bouncer.server.close();
});
afterEach(() => vi.unstubAllEnvs());

describe('guardedFetch', () => {
  it('refuses loopback by address, by name and in IPv6, and nothing reaches the listener', async () => {
    vi.stubEnv(ALLOW_PRIVATE_SETTING, '');
    const port = new URL(internal.url).port;
    const byAddress = await refusalOf(guardedFetch(`${internal.url}/internal/v1/account`));
    expect(byAddress?.message).toMatch(/does not connect to 127\.0\.0\.1: it is a loopback address.*CAIRN_ALLOW_PRIVATE_ENDPOINTS/);
    expect((await refusalOf(guardedFetch(`http://localhost:${port}/`)))?.message).toMatch(/localhost \(it resolves to (127\.0\.0\.1|::1)\)/);
    expect(await refusalOf(guardedFetch(`http://[::ffff:127.0.0.1]:${port}/`))).toBeInstanceOf(OutboundRefusedError);
    expect(internal.hits()).toBe(0);
  });

  it('refuses the cloud metadata address and schemes other than http(s)', async () => {
    vi.stubEnv(ALLOW_PRIVATE_SETTING, '');
    expect((await refusalOf(guardedFetch('http://169.254.169.254/latest/meta-data/')))?.message).toMatch(/link-local \(cloud metadata\)/);
    expect((await refusalOf(guardedFetch('file:///etc/passwd')))?.message).toMatch(/only makes http and https requests/);
  });

  it('checks again where a redirect leads', async () => {
    vi.stubEnv(ALLOW_PRIVATE_SETTING, '127.0.0.2/32');
    const refused = await refusalOf(guardedFetch(`${bouncer.url}/start`));
    expect(refused?.message).toMatch(/does not connect to 127\.0\.0\.1/);
    expect(bouncer.hits()).toBe(1);
    expect(internal.hits()).toBe(0);
  });

  it('reaches what the operator opened', async () => {
    vi.stubEnv(ALLOW_PRIVATE_SETTING, '127.0.0.0/8');
    const response = await guardedFetch(`${bouncer.url}/start`);
    expect(await response.text()).toBe('secret internal answer');
    expect(internal.hits()).toBe(1);
  });

  it('carries git requests through the same guard', async () => {
    vi.stubEnv(ALLOW_PRIVATE_SETTING, '');
    const refused = await refusalOf(guardedGitHttp.request({ url: `${internal.url}/repo.git/info/refs?service=git-upload-pack` }));
    expect(refused).toBeInstanceOf(OutboundRefusedError);
    vi.stubEnv(ALLOW_PRIVATE_SETTING, 'true');
    const answer = await guardedGitHttp.request({ url: `${internal.url}/repo.git/info/refs` });
    expect(answer.statusCode).toBe(200);
    const chunks: Uint8Array[] = [];
    for await (const chunk of answer.body!) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString()).toBe('secret internal answer');
  });
});
