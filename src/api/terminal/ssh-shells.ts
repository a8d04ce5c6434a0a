/**
 * @module Where `cairn serve` gets terminal shells: the server's provider's SSH access (the
 * tenant's runtime key, its pinned host keys, the pooled connections; DriverConfig.ssh as the
 * driver pool makes it) and the server's SSH target (`serverTarget`: a bring-your-own host's
 * own id, else root on its public address), then a PTY shell on a pooled connection.
 */
import type { ClientChannel } from 'ssh2';
import { VendorRejectedError } from '../../drivers/errors.js';
import { serverTarget } from '../../drivers/ssh/server-target.js';
import type { StoredResource } from '../../model/resource.js';
import type { DriverPool } from '../../reconcile/driver-pool.js';
import { sessionOn } from '../../ssh/access.js';
import type { TerminalSize } from './terminal-protocol.js';
import type { ShellSource } from './terminal-route.js';

export function sshShellsFor(drivers: Pick<DriverPool, 'sshAccessFor'>): ShellSource {
  return {
    async shellFor(server: StoredResource<'Server'>, provider: StoredResource<'Provider'>, size: TerminalSize): Promise<ClientChannel> {
      const access = await drivers.sshAccessFor(provider);
      if (!access) throw new VendorRejectedError(`provider ${provider.name} (vendor ${provider.spec.vendor}) gives cairn no SSH access to its servers, so server ${server.name} has no terminal`);
      const address = server.status.endpoints?.ipv4;
      const target = serverTarget(server.status.externalId ?? '', typeof address === 'string' ? address : null);
      const session = await sessionOn(access, target);
      return session.shell(size);
    },
  };
}
