/**
 * @module The sandbox runtime's databases: created with cairn's password (the sandbox keeps only
 * its hash), changed in place, reached through their endpoint, and backed up and restored —
 * each backup and restore once per key, the key sent as the sandbox's client token.
 */
import type { BackupObserved, CallOptions, DatabaseDesired, DatabaseEndpoint, DatabaseObserved, DatabaseRuntime, ExternalRef } from '../contract.js';
import type { SandboxHttpClient } from './http-client.js';
import { HostedThings, segment } from './hosted-things.js';
import { databaseCreateBody, readBackup, readDatabase, readEndpoint } from './wire-format.js';
import { WireReader } from '../kit/wire-reader.js';

export class SandboxDatabases extends HostedThings<DatabaseObserved> implements DatabaseRuntime {
  constructor(client: SandboxHttpClient) {
    super(client, { collection: 'databases', singular: 'database', read: readDatabase });
  }

  create(key: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    return this.send('POST', '/v1/databases', databaseCreateBody(key, desired), `create database "${desired.name}"`, options.signal);
  }

  update(externalId: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const doing = `update database "${desired.name}" (${externalId})`;
    return this.send('PATCH', `/v1/databases/${segment(externalId)}`, { storage_gb: desired.storageGb, version: desired.version }, doing, options.signal);
  }

  async endpoint(externalId: string, options: CallOptions = {}): Promise<DatabaseEndpoint> {
    const doing = `read endpoint of database ${externalId}`;
    const answer = await this.client.call({ method: 'GET', path: `/v1/databases/${segment(externalId)}`, doing, signal: options.signal });
    return readEndpoint(WireReader.of(answer.body, `sandbox: ${doing}`).object('database').object('connection'));
  }

  async setPassword(externalId: string, password: string, options: CallOptions = {}): Promise<void> {
    const doing = `set the password of database ${externalId}`;
    await this.client.call({ method: 'POST', path: `/v1/databases/${segment(externalId)}/password`, body: { password }, doing, signal: options.signal });
  }

  async createBackup(databaseExternalId: string, key: string, options: CallOptions = {}): Promise<BackupObserved> {
    const doing = `back up database ${databaseExternalId}`;
    const path = `/v1/databases/${segment(databaseExternalId)}/backups`;
    const answer = await this.client.call({ method: 'POST', path, body: { client_token: key }, doing, signal: options.signal });
    return readBackup(WireReader.of(answer.body, `sandbox: ${doing}`).object('backup'));
  }

  async observeBackup(ref: ExternalRef, options: CallOptions = {}): Promise<BackupObserved | null> {
    if (ref.externalId) {
      const doing = `observe backup ${ref.externalId}`;
      const answer = await this.client.call({ method: 'GET', path: `/v1/backups/${segment(ref.externalId)}`, doing, accept: [404], signal: options.signal });
      if (answer.status !== 404) return readBackup(WireReader.of(answer.body, `sandbox: ${doing}`).object('backup'));
    }
    const doing = `find backup by key "${ref.key}"`;
    const answer = await this.client.call({ method: 'GET', path: `/v1/backups?client_token=${segment(ref.key)}`, doing, signal: options.signal });
    const [first] = WireReader.of(answer.body, `sandbox: ${doing}`).array('backups');
    return first ? readBackup(first) : null;
  }

  async deleteBackup(backupExternalId: string, options: CallOptions = {}): Promise<void> {
    const doing = `delete backup ${backupExternalId}`;
    await this.client.call({ method: 'DELETE', path: `/v1/backups/${segment(backupExternalId)}`, doing, accept: [404], signal: options.signal });
  }

  restore(databaseExternalId: string, backupExternalId: string, key: string, options: CallOptions = {}): Promise<DatabaseObserved> {
    const doing = `restore backup ${backupExternalId} into database ${databaseExternalId}`;
    const body = { backup_id: backupExternalId, client_token: key };
    return this.send('POST', `/v1/databases/${segment(databaseExternalId)}/restore`, body, doing, options.signal);
  }
}
