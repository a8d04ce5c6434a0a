/**
 * @module The local vendor's runtime: the host's PostgreSQL databases and supervised apps.
 */
import type { DataKeyWrapper } from '../../secrets/sealed-stream.js';
import type { RuntimeDriver } from '../contract.js';
import { LocalApps } from './apps.js';
import { LocalDatabases } from './databases.js';
import type { LocalHost } from './local-host.js';

export class LocalRuntimeDriver implements RuntimeDriver {
  readonly vendor = 'local';
  readonly databases: LocalDatabases;
  readonly apps: LocalApps;
  private closing: Promise<void> | undefined;

  constructor(host: LocalHost, private readonly release: () => Promise<void>, dataKeys: DataKeyWrapper) {
    this.databases = host.part('databases', () => new LocalDatabases(host, dataKeys));
    this.apps = host.part('apps', () => new LocalApps(host), (apps) => apps.close());
  }

  close(): Promise<void> {
    this.closing ??= this.release();
    return this.closing;
  }
}
