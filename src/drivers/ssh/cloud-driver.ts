/**
 * @module The `ssh` vendor's servers: existing hosts a tenant owns, reached over SSH with
 * cairn's runtime key for that tenant. "Creating" a server adopts its host: cairn connects (the
 * host key pinned on first use, the address through the outbound guard), checks it is a Linux
 * host it can work on (`uname -sm`, `id -u`), and writes a small marker record on it
 * (`<runtime dir>/server.json`: the idempotency key and the server's id), so the host itself
 * says which Server adopted it: observe by key finds it again, and a second Server adopting the
 * same host is refused. The id is `ssh:<user>@<host>:<port>` (server-target.ts), so whatever
 * reaches the server later derives its target from the id alone.
 *
 * Deleting forgets the host: the marker goes and nothing else is touched; the host is the
 * tenant's. cairn does not control a host's power: it can reboot it over SSH, never power it on
 * or off. An unreachable host is reported in error with the reason, never as gone.
 */
import { lookup } from 'node:dns/promises';
import { isIPv4, isIPv6 } from 'node:net';
import type { CallOptions, CloudDriver, CredentialTest, ExternalClient, ExternalRef, PowerAction, Region, ServerDesired, ServerMetrics, ServerObserved, Size } from '../contract.js';
import { VendorRejectedError, VendorUnavailableError } from '../errors.js';
import { sessionOn, type SshAccess } from '../../ssh/access.js';
import { identityFingerprint, SshConnectError, type SshTarget } from '../../ssh/connection-pool.js';
import { HostKeyChangedError } from '../../ssh/host-keys.js';
import { readProcMetrics } from '../../ssh/proc-metrics.js';
import { RemoteCommandAbortedError } from '../../ssh/session.js';
import { targetLabel, type SshHosts } from './hosts.js';
import type { RemoteHost } from './remote-host.js';
import type { RuntimeIndex } from './runtime-index.js';
import { sshServerId, targetOfSshServerId } from './server-target.js';
import { sshDriverError } from './ssh-errors.js';
import { SSH_VENDOR } from '../../model/server-vendor-fields.js';

/** The record on the host that says which Server adopted it. */
interface ServerMarker {
  key: string;
  id: string;
  name: string;
  image: string;
  /** `uname -sm` when adopted, e.g. `Linux x86_64`. */
  system: string;
  adoptedAt: string;
}

export interface SshCloudDriverOptions {
  access: SshAccess;
  hosts: SshHosts;
  /** Where cairn notes, before it writes the marker, which host each key adopts (observe by key). */
  index: RuntimeIndex;
  /**
   * What `reboot` runs on the host, detached (default: `systemctl reboot`, else `reboot`). Tests
   * replace it: they must never reboot the machine they run on.
   */
  rebootScript?: string;
}

const MARKER_FILE = 'server.json';
const DEFAULT_REBOOT_SCRIPT = 'systemctl reboot 2>/dev/null || reboot';

export const POWER_REFUSED = 'cairn cannot power on or off a host it does not control (a server of the ssh vendor is an existing host); stop or start it at its owner, and leave spec.state at running';

/** What went wrong reaching a host, as the reconciler needs it: retry (unreachable, timed out) or stall (refused for good). */
export function sshFailure(error: unknown, label: string): Error {
  if (error instanceof VendorRejectedError || error instanceof VendorUnavailableError) return error;
  const mapped = sshDriverError(error);
  if (mapped !== error) return mapped as Error;
  const message = `${(error as Error).message}`;
  if (error instanceof RemoteCommandAbortedError) return new VendorUnavailableError(`on ${label}: ${message}`, { cause: error });
  return new VendorRejectedError(`on ${label}: ${message}`, { cause: error });
}

/** The checks before adopting, in one round trip (a constant script; the marker's path is $1): `uname -sm`, `id -u`, then the marker if any. */
const VERIFY_SCRIPT = 'uname -sm && id -u && { cat -- "$1" 2>/dev/null; exit 0; }';

function parseMarker(text: string, path: string): ServerMarker | null {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as ServerMarker;
  } catch (error) {
    throw new VendorRejectedError(`cairn's marker ${path} on the host is not valid JSON (${(error as Error).message}); remove it to let cairn adopt the host again`, { cause: error });
  }
}

/** Whether reaching the host failed (refused, timed out, host key changed, ...), rather than something on it. */
function unreachable(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth++) {
    if (at instanceof SshConnectError || at instanceof HostKeyChangedError || at instanceof RemoteCommandAbortedError) return true;
  }
  return false;
}

/** The host's IPv4 and IPv6 addresses as the server's endpoints: the host itself when it is one, else what its name resolves to. */
async function addressesOf(host: string): Promise<{ ipv4: string | null; ipv6: string | null }> {
  if (isIPv4(host)) return { ipv4: host, ipv6: null };
  if (isIPv6(host)) return { ipv4: null, ipv6: host };
  const first = async (family: 4 | 6): Promise<string | null> => {
    try {
      return (await lookup(host, { family })).address;
    } catch {
      return null;
    }
  };
  const [ipv4, ipv6] = await Promise.all([first(4), first(6)]);
  return { ipv4, ipv6 };
}

export class SshCloudDriver implements CloudDriver {
  readonly vendor = SSH_VENDOR;
  readonly servers: ExternalClient<ServerDesired, ServerObserved>;
  private readonly rebootScript: string;

  constructor(private readonly options: SshCloudDriverOptions) {
    this.rebootScript = options.rebootScript ?? DEFAULT_REBOOT_SCRIPT;
    this.servers = {
      observe: (ref, callOptions) => this.observe(ref, callOptions),
      create: (key, desired, callOptions) => this.create(key, desired, callOptions),
      update: (externalId, _desired, callOptions) => this.update(externalId, callOptions),
      delete: (externalId, callOptions) => this.forget(externalId, callOptions),
    };
  }

  private targetOf(externalId: string): SshTarget {
    const target = targetOfSshServerId(externalId);
    if (!target) throw new VendorRejectedError(`"${externalId}" is not the id of a server of the ssh vendor (ssh:<user>@<host>:<port>)`);
    return target;
  }

  private async host(target: SshTarget, options?: CallOptions): Promise<RemoteHost> {
    try {
      return await this.options.hosts.host(target, options);
    } catch (error) {
      throw sshFailure(error, targetLabel(target));
    }
  }

  private async readMarker(host: RemoteHost, options?: CallOptions): Promise<ServerMarker | null> {
    return parseMarker(await host.run(['sh', '-c', 'cat -- "$1" 2>/dev/null; exit 0', 'sh', host.path(MARKER_FILE)], { signal: options?.signal }), host.path(MARKER_FILE));
  }

  private async observed(target: SshTarget, marker: ServerMarker): Promise<ServerObserved> {
    return { id: marker.id, name: marker.name, clientToken: marker.key, region: '', size: '', image: marker.image, status: 'running', ...(await addressesOf(target.host)) };
  }

  /** The server by its id (or, when the id is not one or no longer adopted, by the key that adopted it); null when neither is there. */
  private async observe(ref: ExternalRef, options?: CallOptions): Promise<ServerObserved | null> {
    const byId = ref.externalId ? await this.observeId(ref.externalId, ref.key, options) : null;
    if (byId?.status === 'running') return byId;
    // Not there by that id (or not reachable under it): the host the key adopted, if another.
    const entry = this.options.index.find('server', { key: ref.key });
    if (!entry || entry.id === ref.externalId) return byId;
    const byKey = await this.observeId(entry.id, ref.key, options);
    return byKey && byKey.clientToken === ref.key && (byKey.status === 'running' || !byId) ? byKey : byId;
  }

  private async observeId(id: string, key: string, options?: CallOptions): Promise<ServerObserved | null> {
    const target = targetOfSshServerId(id);
    if (!target) return null;
    let marker: ServerMarker | null;
    try {
      marker = await this.readMarker(await this.host(target, options), options);
    } catch (error) {
      if (!unreachable(error)) throw sshFailure(error, targetLabel(target));
      // Unreachable or refusing cairn: reported in error with why, never as gone (the host is still the tenant's).
      return {
        id, name: '', clientToken: this.options.index.byId('server', id)?.key ?? key, region: '', size: '', image: '', status: 'error',
        ...(await addressesOf(target.host)),
        message: `cairn cannot reach the host: ${(error as Error).message}`,
      };
    }
    if (marker === null || marker.id !== id) return null;
    return this.observed(target, marker);
  }

  private async create(key: string, desired: ServerDesired, options?: CallOptions): Promise<ServerObserved> {
    if (!desired.ssh) throw new VendorRejectedError('a server of the ssh vendor is an existing host: spec.host names it', { field: 'host' });
    const target: SshTarget = { host: desired.ssh.host, port: desired.ssh.port, user: desired.ssh.user };
    const id = sshServerId(target);
    const label = targetLabel(target);
    const host = await this.host(target, options);
    let system: string;
    let existing: ServerMarker | null;
    try {
      const [uname = '', uid = '', ...marker] = (await host.run(['sh', '-c', VERIFY_SCRIPT, 'sh', host.path(MARKER_FILE)], { signal: options?.signal })).split('\n');
      system = uname.trim();
      if (!/^\d+$/.test(uid.trim())) throw new Error(`\`id -u\` printed ${JSON.stringify(uid)}, not a user id`);
      existing = parseMarker(marker.join('\n'), host.path(MARKER_FILE));
    } catch (error) {
      throw sshFailure(error, label);
    }
    if (!system.startsWith('Linux ')) {
      throw new VendorRejectedError(`${label} runs ${JSON.stringify(system)} (uname -sm); cairn places databases and apps on Linux hosts only`, { field: 'host' });
    }
    if (existing !== null && existing.key !== key) {
      throw new VendorRejectedError(
        `${label} is already adopted by another server (cairn's marker ${host.path(MARKER_FILE)} names server ${JSON.stringify(existing.name)}, ${existing.id}): one Server per host. ` +
          'Delete that Server first, or remove the marker if that server no longer exists',
        { field: 'host' },
      );
    }
    if (existing !== null) return this.observed(target, existing);
    this.options.index.put({ kind: 'server', id, key, serverId: id, target });
    const marker: ServerMarker = { key, id, name: desired.name, image: desired.image, system, adoptedAt: new Date().toISOString() };
    try {
      await host.session.upload(host.path(MARKER_FILE), Buffer.from(`${JSON.stringify(marker)}\n`), 0o600);
    } catch (error) {
      throw sshFailure(error, label);
    }
    return this.observed(target, marker);
  }

  private async update(externalId: string, options?: CallOptions): Promise<ServerObserved> {
    // Nothing of an existing host changes in place (size and region it has none; host, port and user replace it).
    const observed = await this.observe({ key: '', externalId }, options);
    if (!observed) throw new VendorRejectedError(`server ${externalId} is not adopted by cairn (no marker on the host)`);
    return observed;
  }

  /** Forgets the host: its marker goes; nothing else on the host is touched (it is the tenant's). */
  private async forget(externalId: string, options?: CallOptions): Promise<void> {
    const target = this.targetOf(externalId);
    const label = targetLabel(target);
    const host = await this.host(target, options).catch((error: unknown) => {
      throw error instanceof VendorUnavailableError
        ? new VendorUnavailableError(`${error.message}; cairn forgets a host by removing its marker there, so it must reach it (or set the Server's deletionPolicy to Orphan to forget it without reaching it)`, { cause: error })
        : error;
    });
    try {
      await host.run(['rm', '-f', '--', host.path(MARKER_FILE)], { signal: options?.signal });
    } catch (error) {
      throw sshFailure(error, label);
    }
    this.options.index.remove('server', externalId);
  }

  async power(externalId: string, action: PowerAction, options?: CallOptions): Promise<ServerObserved> {
    if (action !== 'reboot') throw new VendorRejectedError(POWER_REFUSED, { field: 'state' });
    const target = this.targetOf(externalId);
    const label = targetLabel(target);
    const host = await this.host(target, options);
    const observed = await this.observe({ key: '', externalId }, options);
    if (!observed || observed.status === 'error') throw new VendorRejectedError(`cannot reboot ${label}: ${observed?.message ?? 'cairn has not adopted this host'}`);
    try {
      // Detached from the SSH session (its own session, no terminal, no inherited streams), after the answer is back.
      await host.run(['sh', '-c', 'setsid sh -c \'sleep 1; eval "$1"\' sh "$1" </dev/null >/dev/null 2>&1 &', 'sh', this.rebootScript], { signal: options?.signal });
    } catch (error) {
      throw sshFailure(error, label);
    }
    return { ...observed, status: 'rebooting' };
  }

  regions(): Promise<Region[]> {
    return Promise.resolve([]);
  }

  sizes(): Promise<Size[]> {
    return Promise.resolve([]);
  }

  async testCredentials(): Promise<CredentialTest> {
    let fingerprint: string;
    try {
      fingerprint = identityFingerprint(await this.options.access.identity());
    } catch (error) {
      return { ok: false, message: `cairn's runtime SSH key for this tenant cannot be read: ${(error as Error).message}` };
    }
    return {
      ok: true,
      message:
        `the ssh vendor takes no credentials: cairn reaches each server's host over SSH with its own runtime key for this tenant (${fingerprint}). ` +
        'Put that public key (GET /ssh-keys/runtime) in the authorized_keys of the user each Server names (spec.user, root by default)',
    };
  }

  async metrics(externalId: string, options?: CallOptions): Promise<ServerMetrics> {
    const target = this.targetOf(externalId);
    try {
      return await readProcMetrics(await sessionOn(this.options.access, target), { signal: options?.signal });
    } catch (error) {
      throw sshFailure(error, targetLabel(target));
    }
  }

  close(): Promise<void> {
    // The connections are the process's pool (DriverConfig.ssh), not this driver's.
    return Promise.resolve();
  }
}
