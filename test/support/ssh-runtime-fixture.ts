/**
 * @module An SSH runtime to test against: a real sshd on loopback whose sessions keep cairn's
 * runtime files in a temporary directory (`CAIRN_RUNTIME_DIR` through sshd's SetEnv), a client
 * key in its authorized_keys, pooled connections with in-memory host-key pins, and the options
 * the runtime's halves are built from (a temporary data dir, the index, a data-key wrapper).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Placement } from '../../src/drivers/contract.js';
import { SshHosts } from '../../src/drivers/ssh/hosts.js';
import { RuntimeIndex } from '../../src/drivers/ssh/runtime-index.js';
import type { SshRuntimeOptions } from '../../src/drivers/ssh/runtime-options.js';
import { randomBytes } from 'node:crypto';
import { masterKeyId } from '../../src/secrets/master-key.js';
import { keyringDataKeys } from '../../src/secrets/sealed-stream.js';
import type { SshAccess } from '../../src/ssh/access.js';
import { MemoryHostKeyPins, SshConnections, type SshTarget } from '../../src/ssh/index.js';
import { makeClientKeyPair, startSshd, type RunningSshd } from './sshd.js';

export interface SshRuntimeFixture {
  sshd: RunningSshd;
  /** Where the runtime keeps its files on the "remote" host (this machine, reached over SSH). */
  runtimeDir: string;
  dataDir: string;
  target: SshTarget;
  /** A placement on the sshd's host, as the reconciler would give it. */
  placement: Placement;
  access: SshAccess;
  options: SshRuntimeOptions;
  /** Closes connections, stops sshd and removes the directories. */
  cleanup(): Promise<void>;
}

export async function startSshRuntimeFixture(vendor = 'ssh'): Promise<SshRuntimeFixture> {
  const runtimeDir = mkdtempSync(join(tmpdir(), 'cairn-ssh-runtime-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-ssh-data-'));
  const key = makeClientKeyPair();
  const sshd = await startSshd({ authorizedKeys: [key.publicKey], setEnv: { CAIRN_RUNTIME_DIR: runtimeDir } });
  const connections = new SshConnections();
  const secret = randomBytes(32);
  const master = { id: masterKeyId(secret), key: secret };
  const access: SshAccess = { connections, identity: () => Promise.resolve({ privateKey: key.privateKey }), pins: new MemoryHostKeyPins() };
  const target: SshTarget = { host: sshd.host, port: sshd.port, user: sshd.user };
  const placement: Placement = { serverExternalId: `ssh:${sshd.user}@${sshd.host}:${sshd.port}`, serverAddress: sshd.host };
  const options: SshRuntimeOptions = {
    vendor,
    dataDir,
    hosts: new SshHosts(access),
    index: RuntimeIndex.of(dataDir),
    targetFor: () => target,
    dataKeys: keyringDataKeys({ active: master, keys: [master] }),
  };
  return {
    sshd, runtimeDir, dataDir, target, placement, access, options,
    async cleanup() {
      await connections.close();
      await sshd.stop({ remove: true });
      rmSync(runtimeDir, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
