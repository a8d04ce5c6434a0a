/**
 * A rotation of cairn's runtime key against a real sshd: a host that knows only the previous
 * key is reached with it, given the current public key, and reached with the current key from
 * then on; without a rotation in progress a refused key stays refused, naming the key.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sessionOn, type SshAccess } from '../src/ssh/access.js';
import { MemoryHostKeyPins, SshConnections } from '../src/ssh/index.js';
import { makeClientKeyPair, startSshd, type RunningSshd } from './support/sshd.js';


describe('the runtime key during a rotation', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function hostKnowing(publicKey: string): Promise<{ sshd: RunningSshd; home: string }> {
    const home = mkdtempSync(join(tmpdir(), 'cairn-ssh-home-'));
    const sshd = await startSshd({ authorizedKeys: [publicKey], homeDir: home });
    cleanups.push(async () => {
      await sshd.stop({ remove: true });
      rmSync(home, { recursive: true, force: true });
    });
    return { sshd, home };
  }

  function connections(): SshConnections {
    const pool = new SshConnections({ connectAttempts: 1 });
    cleanups.push(() => pool.close());
    return pool;
  }

  it('moves a host that knows only the previous key on to the current one', async () => {
    const previous = makeClientKeyPair('previous');
    const current = makeClientKeyPair('current');
    const { sshd, home } = await hostKnowing(previous.publicKey);
    const pool = connections();
    const access: SshAccess = {
      connections: pool,
      pins: new MemoryHostKeyPins(),
      identity: () => Promise.resolve({ privateKey: current.privateKey }),
      rotation: () => Promise.resolve({ previous: { privateKey: previous.privateKey, publicKey: previous.publicKey }, currentPublicKey: current.publicKey }),
    };
    const target = { host: sshd.host, port: sshd.port, user: sshd.user };
    const session = await sessionOn(access, target);
    expect((await session.run(['echo', 'in'])).stdout).toBe('in\n');
    expect(readFileSync(join(home, '.ssh', 'authorized_keys'), 'utf8')).toBe(`${current.publicKey.trim()}\n`);

    // From now on the current key alone is let in, and installing it again adds nothing.
    const fresh = connections();
    const onlyCurrent: SshAccess = { connections: fresh, pins: access.pins, identity: () => access.identity() };
    expect((await (await sessionOn(onlyCurrent, target)).run(['echo', 'again'])).stdout).toBe('again\n');
    await sessionOn({ ...access, connections: connections() }, target);
    expect(readFileSync(join(home, '.ssh', 'authorized_keys'), 'utf8')).toBe(`${current.publicKey.trim()}\n`);
  });

  it('keeps a refused key refused when no rotation is in progress, naming the key', async () => {
    const known = makeClientKeyPair('known');
    const stranger = makeClientKeyPair('stranger');
    const { sshd } = await hostKnowing(known.publicKey);
    const access: SshAccess = {
      connections: connections(),
      pins: new MemoryHostKeyPins(),
      identity: () => Promise.resolve({ privateKey: stranger.privateKey }),
      rotation: () => Promise.resolve(null),
    };
    await expect(sessionOn(access, { host: sshd.host, port: sshd.port, user: sshd.user })).rejects.toThrow(stranger.fingerprint);
  });
});
