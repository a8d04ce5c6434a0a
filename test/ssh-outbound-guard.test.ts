/**
 * Every SSH connection passes the outbound guard (src/ssh/connection-pool.ts): a tenant's host
 * in a closed range — the cloud metadata address, loopback, a name that resolves to loopback — is
 * refused before any packet is sent unless CAIRN_ALLOW_PRIVATE_ENDPOINTS opens it, and the
 * connection goes to the address the guard checked, not to a second resolution of the name.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { outboundRefusal } from '../src/net/guarded-fetch.js';
import { MemoryHostKeyPins, SshConnectError, SshConnections, type SshIdentity } from '../src/ssh/index.js';
import { makeClientKeyPair, startSshd, type RunningSshd } from './support/sshd.js';


async function rejection(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(() => undefined, (error: unknown) => error);
  if (!(outcome instanceof Error)) throw new Error(`expected a rejection with an Error, got ${String(outcome)}`);
  return outcome;
}

describe('the outbound guard on SSH connections', () => {
  const client = makeClientKeyPair('cairn-guard-test');
  const identity: SshIdentity = { privateKey: client.privateKey };
  const saved = process.env['CAIRN_ALLOW_PRIVATE_ENDPOINTS'];
  let sshd: RunningSshd;
  const pools: SshConnections[] = [];

  function pool(options: ConstructorParameters<typeof SshConnections>[0] = {}): SshConnections {
    const made = new SshConnections({ connectAttempts: 1, connectTimeoutMs: 3000, ...options });
    pools.push(made);
    return made;
  }

  beforeAll(async () => {
    sshd = await startSshd({ authorizedKeys: [client.publicKey] });
  });

  afterEach(() => {
    if (saved === undefined) delete process.env['CAIRN_ALLOW_PRIVATE_ENDPOINTS'];
    else process.env['CAIRN_ALLOW_PRIVATE_ENDPOINTS'] = saved;
  });

  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
    await sshd?.stop({ remove: true });
  });

  it.each([
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['127.0.0.1', 'loopback'],
    ['localhost', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
  ])('refuses a tenant\'s host %s without CAIRN_ALLOW_PRIVATE_ENDPOINTS, sending nothing', async (host, range) => {
    process.env['CAIRN_ALLOW_PRIVATE_ENDPOINTS'] = '';
    const connections = pool();
    const error = await rejection(connections.session({ host, port: sshd.port, user: sshd.user }, identity, new MemoryHostKeyPins()));
    expect(error).toBeInstanceOf(SshConnectError);
    expect((error as SshConnectError).retryable).toBe(false);
    expect(error.message).toContain(`it is a ${range} address`);
    expect(error.message).toContain('CAIRN_ALLOW_PRIVATE_ENDPOINTS');
    expect(outboundRefusal(error)).toBeDefined();
    expect(connections.connectsMade).toBe(0);
  });

  it('connects to loopback once the operator opens it (a CIDR list), pinning the host key', async () => {
    process.env['CAIRN_ALLOW_PRIVATE_ENDPOINTS'] = '127.0.0.0/8';
    const connections = pool();
    const pins = new MemoryHostKeyPins();
    const session = await connections.session({ host: sshd.host, port: sshd.port, user: sshd.user }, identity, pins);
    expect((await session.run(['echo', 'reached'])).stdout).toBe('reached\n');
    expect(connections.connectsMade).toBe(1);
  });

  it('connects to the address the guard checked, not to a fresh resolution of the name', async () => {
    const asked: string[] = [];
    const connections = pool({
      resolveTarget: (host) => {
        asked.push(host);
        return Promise.resolve(sshd.host);
      },
    });
    // The name does not resolve anywhere: only the checked address can have been reached.
    const session = await connections.session({ host: 'byo-host.invalid', port: sshd.port, user: sshd.user }, identity, new MemoryHostKeyPins());
    expect((await session.run(['echo', 'via checked address'])).stdout).toBe('via checked address\n');
    expect(asked).toEqual(['byo-host.invalid']);
  });

  it('says plainly when a host name does not resolve', async () => {
    process.env['CAIRN_ALLOW_PRIVATE_ENDPOINTS'] = 'true';
    const error = await rejection(pool().session({ host: 'no-such-host.invalid', port: 22, user: 'root' }, identity, new MemoryHostKeyPins()));
    expect(error.message).toBe('ssh to root@no-such-host.invalid:22: the host name does not resolve');
  });
});
