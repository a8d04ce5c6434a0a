/**
 * @module The sandbox's `/v1/databases` API: databases hosted on a sandbox server, created
 * idempotently per client token with the password the client chose (kept only as a hash);
 * storage only grows, versions only go up.
 */
import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { notFound, unprocessable } from '../api-error.js';
import { clientTokenFilter, jsonBody, optionalInteger, optionalString, pathId, requiredChoice, requiredString } from '../body-fields.js';
import { initialDataBytes } from '../backup-content.js';
import { hashPasswordOffLoop, readPassword } from '../database-passwords.js';
import { route } from '../reply.js';
import type { DatabaseRow } from '../store/databases-table.js';
import { DATABASE_TYPES, engineVersionFor, ENGINE_VERSIONS, existingDatabase, showDatabase, userNameFor } from './database-representation.js';
import type { RouteContext } from './route-context.js';

const MAX_STORAGE_GB = 16_384;

export function databaseRoutes(ctx: RouteContext): Router {
  const router = Router();
  const { store } = ctx;

  const existing = (id: string): DatabaseRow => existingDatabase(store, id);

  router.get('/v1/databases', route((req) => {
    const token = clientTokenFilter(req);
    const rows = token === undefined ? store.databases.list() : [store.databases.findByToken(token)].filter((r) => r !== undefined);
    const now = ctx.now();
    return { status: 200, body: { databases: rows.map((r) => showDatabase(store, r, now)) } };
  }));

  router.post('/v1/databases', route((req) => {
    const body = jsonBody(req);
    const name = requiredString(body, 'name', 63);
    const serverId = requiredString(body, 'server_id');
    const type = requiredChoice(body, 'type', DATABASE_TYPES);
    const version = requiredString(body, 'version', 16);
    const engineVersion = engineVersionFor(type, version);
    if (engineVersion === undefined) {
      throw unprocessable('version', `${type} version "${version}" is not offered (versions: ${Object.keys(ENGINE_VERSIONS[type]).join(', ')})`);
    }
    const storageGb = optionalInteger(body, 'storage_gb', 1, MAX_STORAGE_GB) ?? null;
    if (type === 'mongodb' && storageGb !== null) throw unprocessable('storage_gb', 'storage_gb applies to postgresql only; send null for mongodb');
    const password = readPassword(body);
    const clientToken = optionalString(body, 'client_token', 255) ?? `generated-${randomUUID()}`;
    // A create sent again under its token is answered without hashing the password again.
    const replayed = store.databases.findByToken(clientToken);
    if (replayed) return { status: 200, body: { database: showDatabase(store, replayed, ctx.now()) } };
    return hashPasswordOffLoop(password).then((passwordHash) => {
      const now = ctx.now();
      const { row, created } = store.transaction(() => {
        const found = store.databases.findByToken(clientToken);
        if (found) return { row: found, created: false };
        if (!store.servers.get(serverId)) throw unprocessable('server_id', `server_id "${serverId}" is not a server of this account`);
        const id = randomUUID();
        return store.databases.insertOrFind({
          id, client_token: clientToken, name, server_id: serverId, type, version,
          engine_version: engineVersion, storage_gb: storageGb, username: userNameFor(name),
          password_hash: passwordHash, password_set_at_ms: now,
          data_seed: id, data_bytes: initialDataBytes(type, storageGb), last_restored_backup_id: null,
          busy_status: 'creating', busy_until_ms: now + ctx.provisionMs, created_at_ms: now,
        });
      });
      return { status: created ? 201 : 200, body: { database: showDatabase(store, row, now) } };
    });
  }));

  router.get('/v1/databases/:id', route((req) => ({ status: 200, body: { database: showDatabase(store, existing(pathId(req)), ctx.now()) } })));

  router.patch('/v1/databases/:id', route((req) => {
    const id = pathId(req);
    const body = jsonBody(req);
    const storageGb = optionalInteger(body, 'storage_gb', 1, MAX_STORAGE_GB);
    const version = optionalString(body, 'version', 16);
    const row = store.transaction(() => {
      let current = existing(id);
      if (version !== undefined && version !== null && version !== current.version) {
        const engineVersion = engineVersionFor(current.type, version);
        if (engineVersion === undefined) {
          throw unprocessable('version', `${current.type} version "${version}" is not offered (versions: ${Object.keys(ENGINE_VERSIONS[current.type]).join(', ')})`);
        }
        if (Number.parseFloat(version) < Number.parseFloat(current.version)) {
          throw unprocessable('version', `major versions can only be upgraded: ${current.version} now, ${version} asked`);
        }
        current = store.databases.setVersion(id, version, engineVersion) ?? current;
      }
      if (storageGb === undefined || storageGb === null || storageGb === current.storage_gb) return current;
      if (current.type !== 'postgresql') throw unprocessable('storage_gb', 'storage_gb applies to postgresql only');
      if (current.storage_gb !== null && storageGb < current.storage_gb) {
        throw unprocessable('storage_gb', `storage can only grow: ${current.storage_gb} GB now, ${storageGb} GB asked`);
      }
      return store.databases.setStorage(id, storageGb) ?? current;
    });
    return { status: 200, body: { database: showDatabase(store, row, ctx.now()) } };
  }));

  router.delete('/v1/databases/:id', route((req) => {
    const id = pathId(req);
    if (!store.databases.delete(id)) throw notFound('database', id);
    return { status: 204 };
  }));

  return router;
}
