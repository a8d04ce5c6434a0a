/**
 * @module The Azure Database for PostgreSQL flexible server client of one Provider
 * (`@azure/arm-postgresql-flexible`, API 2025-08-01), on the same guarded connection, sign-in,
 * retries and rate budget as the Provider's compute and network clients. Loaded on first use
 * only (the vendor's `createManagedDatabases`), never with the registry.
 */
import { PostgreSQLManagementFlexibleServerClient } from '@azure/arm-postgresql-flexible';
import type { DriverConfig } from '../contract.js';
import { azureConnection, type AzureCredentials } from './azure-clients.js';

export interface AzurePostgresClient {
  credentials: AzureCredentials;
  flexible: PostgreSQLManagementFlexibleServerClient;
}

export function azurePostgresClient(config: DriverConfig): AzurePostgresClient {
  const { credentials, credential, options } = azureConnection(config);
  return { credentials, flexible: new PostgreSQLManagementFlexibleServerClient(credential, credentials.subscriptionId, options) };
}
