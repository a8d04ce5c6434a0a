/**
 * @module The hosts an SSH runtime works on: one `RemoteHost` per target (user@host:port),
 * opened on first use over the pooled connection and kept; a host whose opening failed is tried
 * afresh by the next call.
 */
import type { CallOptions } from '../contract.js';
import { sessionOn, type SshAccess } from '../../ssh/access.js';
import type { SshTarget } from '../../ssh/connection-pool.js';
import { RemoteHost } from './remote-host.js';
import { sshDriverError } from './ssh-errors.js';

export function targetLabel(target: SshTarget): string {
  return `${target.user}@${target.host}:${target.port}`;
}

export class SshHosts {
  private readonly opened = new Map<string, Promise<RemoteHost>>();

  constructor(readonly access: SshAccess) {}

  host(target: SshTarget, options?: CallOptions): Promise<RemoteHost> {
    const label = targetLabel(target);
    let host = this.opened.get(label);
    if (!host) {
      host = sessionOn(this.access, target)
        .then((session) => RemoteHost.open(session, options))
        .catch((error: unknown) => {
          throw sshDriverError(error);
        });
      this.opened.set(label, host);
      host.catch(() => this.opened.delete(label));
    }
    return host;
  }
}
