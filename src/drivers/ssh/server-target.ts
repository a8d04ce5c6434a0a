/**
 * @module Where cairn reaches a server over SSH. A bring-your-own host (the `ssh` vendor) carries
 * its target in its id, `ssh:<user>@<host>:<port>`; a server a cloud vendor made is reached as
 * root on port 22 of its public address, with cairn's runtime key that went in its user data.
 */
import type { SshTarget } from '../../ssh/connection-pool.js';
import { VendorRejectedError } from '../errors.js';

const SSH_ID = /^ssh:([a-z_][a-z0-9_.-]{0,31})@(.+):(\d{1,5})$/;

/** The id of a bring-your-own host. */
export function sshServerId(target: SshTarget): string {
  return `ssh:${target.user}@${target.host}:${target.port}`;
}

/** The target named by a bring-your-own host's id, or undefined for any other id. */
export function targetOfSshServerId(id: string): SshTarget | undefined {
  const match = SSH_ID.exec(id);
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port < 1 || port > 65_535) return undefined;
  return { user: match[1] ?? 'root', host: (match[2] ?? '').replace(/^\[(.*)\]$/, '$1'), port };
}

/** How to reach a server: its bring-your-own target, else root@its address:22. */
export function serverTarget(serverExternalId: string, serverAddress: string | null): SshTarget {
  const own = targetOfSshServerId(serverExternalId);
  if (own) return own;
  if (!serverAddress) throw new VendorRejectedError(`server ${serverExternalId || '(not created yet)'} has no public address yet, so cairn cannot reach it over SSH`);
  return { host: serverAddress, port: 22, user: 'root' };
}
