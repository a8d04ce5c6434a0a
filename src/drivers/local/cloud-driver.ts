/**
 * @module The local vendor's servers: this host, in region `local` with size `host` (its real
 * CPU count, memory and disk). A Server is a record standing for the host; powering it off
 * stops the databases and apps placed on it, powering it on starts them, reboot does both.
 * Metrics are the host's real use.
 */
import { hostname, cpus, totalmem } from 'node:os';
import type { CloudDriver, CredentialTest, ExternalClient, PowerAction, Region, ServerDesired, ServerMetrics, ServerObserved, Size } from '../contract.js';
import { VendorRejectedError } from '../errors.js';
import { diskUsage } from './host-metrics.js';
import type { LocalHost } from './local-host.js';
import { findByRef, type ServerRecord } from './state-file.js';

export const LOCAL_REGION = 'local';
export const LOCAL_SIZE = 'host';

function toObserved(s: ServerRecord): ServerObserved {
  return { id: s.id, name: s.name, clientToken: s.clientToken, region: s.region, size: s.size, image: s.image, status: s.status, ipv4: '127.0.0.1', ipv6: null };
}

function checkPlacement(desired: ServerDesired): void {
  if (desired.region !== LOCAL_REGION) throw new VendorRejectedError(`the local vendor has one region, "${LOCAL_REGION}" (this host), not "${desired.region}"`, { field: 'region' });
  if (desired.size !== LOCAL_SIZE) throw new VendorRejectedError(`the local vendor has one size, "${LOCAL_SIZE}" (this host as it is), not "${desired.size}"`, { field: 'size' });
}

class LocalServers implements ExternalClient<ServerDesired, ServerObserved> {
  constructor(private readonly host: LocalHost) {}

  observe(ref: { key: string; externalId?: string | null }): Promise<ServerObserved | null> {
    const found = findByRef(this.host.state.current.servers, ref);
    return Promise.resolve(found ? toObserved(found) : null);
  }

  async create(key: string, desired: ServerDesired): Promise<ServerObserved> {
    await Promise.resolve();
    checkPlacement(desired);
    const existing = this.host.state.current.servers.find((s) => s.clientToken === key);
    if (existing) return toObserved(existing);
    const record: ServerRecord = { id: this.host.newId('host'), name: desired.name, clientToken: key, region: desired.region, size: desired.size, image: desired.image, status: 'running' };
    this.host.state.update((s) => s.servers.push(record));
    return toObserved(record);
  }

  async update(externalId: string, desired: ServerDesired): Promise<ServerObserved> {
    await Promise.resolve();
    checkPlacement(desired);
    const found = this.host.state.current.servers.find((s) => s.id === externalId);
    if (!found) throw new VendorRejectedError(`server ${externalId} does not exist on this host`, { status: 404 });
    return toObserved(found);
  }

  delete(externalId: string): Promise<void> {
    this.host.state.update((s) => {
      s.servers = s.servers.filter((x) => x.id !== externalId);
    });
    return Promise.resolve();
  }
}

export class LocalCloudDriver implements CloudDriver {
  readonly vendor = 'local';
  readonly servers: LocalServers;
  private closing: Promise<void> | undefined;

  constructor(private readonly host: LocalHost, private readonly release: () => Promise<void>) {
    this.servers = new LocalServers(host);
  }

  async power(externalId: string, action: PowerAction): Promise<ServerObserved> {
    const found = this.host.state.current.servers.find((s) => s.id === externalId);
    if (!found) throw new VendorRejectedError(`server ${externalId} does not exist on this host`, { status: 404 });
    const setStatus = (status: ServerRecord['status']): void =>
      this.host.state.update((s) => {
        const server = s.servers.find((x) => x.id === externalId);
        if (server) server.status = status;
      });
    if (action === 'power_off' || action === 'reboot') {
      setStatus('stopped');
      await this.host.stopWorkloads(externalId);
    }
    if (action === 'power_on' || action === 'reboot') {
      setStatus('running');
      await this.host.startWorkloads(externalId);
    }
    return toObserved(this.host.state.current.servers.find((s) => s.id === externalId) ?? found);
  }

  regions(): Promise<Region[]> {
    return Promise.resolve([{ slug: LOCAL_REGION, name: `this host (${hostname()})`, available: true }]);
  }

  sizes(): Promise<Size[]> {
    const disk = diskUsage(this.host.root);
    return Promise.resolve([
      {
        slug: LOCAL_SIZE, vcpus: cpus().length, memoryMb: Math.round(totalmem() / 2 ** 20), diskGb: Math.round(disk.totalBytes / 2 ** 30),
        priceMonthly: 0, regions: [LOCAL_REGION],
      },
    ]);
  }

  testCredentials(): Promise<CredentialTest> {
    return Promise.resolve({ ok: true, message: `the local vendor is this host (${hostname()}); it takes no credentials` });
  }

  async metrics(externalId: string): Promise<ServerMetrics> {
    await Promise.resolve();
    if (!this.host.state.current.servers.some((s) => s.id === externalId)) {
      throw new VendorRejectedError(`server ${externalId} does not exist on this host`, { status: 404 });
    }
    return this.host.sampler.metrics();
  }

  close(): Promise<void> {
    this.closing ??= this.release();
    return this.closing;
  }
}
