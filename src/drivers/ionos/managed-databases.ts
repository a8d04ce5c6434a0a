/**
 * @module IONOS's managed database service as cairn's ManagedDatabaseDriver: PostgreSQL clusters
 * (postgres-clusters.ts) on the DBaaS PostgreSQL API's client, connected to cairn's data centers
 * through the Cloud API's client (datacenters.ts).
 */
import type { ManagedDatabaseDriver } from '../contract.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import type { IonosDatacenters } from './datacenters.js';
import { IonosPostgresClusters } from './postgres-clusters.js';

export class IonosManagedDatabaseDriver implements ManagedDatabaseDriver {
  readonly vendor = 'ionos';
  readonly databases: IonosPostgresClusters;

  constructor(parts: { postgresql: VendorHttpClient; datacenters: IonosDatacenters }, pollMs = 1000) {
    this.databases = new IonosPostgresClusters(parts.postgresql, parts.datacenters, pollMs);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
