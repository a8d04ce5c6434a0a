/**
 * @module The sandbox vendor's runtime: databases and apps hosted on sandbox servers, through
 * the sandbox API, found by id or by the client token derived from the resource's uid.
 */
import type { RuntimeDriver } from '../contract.js';
import { SandboxApps } from './app-runtime.js';
import { SandboxDatabases } from './database-runtime.js';
import type { SandboxHttpClient } from './http-client.js';

export class SandboxRuntimeDriver implements RuntimeDriver {
  readonly vendor = 'sandbox';
  readonly databases: SandboxDatabases;
  readonly apps: SandboxApps;
  private closing: Promise<void> | undefined;

  /** `release` is called once on close (e.g. to let go of an in-process sandbox cloud). */
  constructor(client: SandboxHttpClient, private readonly release: () => Promise<void> = () => Promise.resolve()) {
    this.databases = new SandboxDatabases(client);
    this.apps = new SandboxApps(client);
  }

  close(): Promise<void> {
    this.closing ??= this.release();
    return this.closing;
  }
}
