/**
 * @module The sandbox's backups and restores. `POST /v1/databases/{id}/backups` copies what the
 * database holds (once per client token) and stores it over a while; backups are listed and
 * read under `/v1/backups`, outlive their database, and are deleted there.
 * `POST /v1/databases/{id}/restore` gives the database a completed backup's data (of the same
 * engine type), once per client token.
 */
import { randomUUID } from 'node:crypto';
import { Router, type Request } from 'express';
import { notFound, SandboxApiError, unprocessable } from '../api-error.js';
import { backupContent } from '../backup-content.js';
import { clientTokenFilter, jsonBody, optionalString, pathId, requiredString } from '../body-fields.js';
import { route } from '../reply.js';
import type { BackupRow } from '../store/backups-table.js';
import { backupBody, restoreBody } from './backup-representation.js';
import { existingDatabase, showDatabase } from './database-representation.js';
import type { RouteContext } from './route-context.js';

function databaseIdFilter(req: Request): string | undefined {
  const value: unknown = req.query['database_id'];
  if (value === undefined || typeof value === 'string') return value;
  throw unprocessable('database_id', 'database_id must be given at most once, as a plain string');
}

/** A body that may be absent (`POST` with no content) reads as `{}`. */
function optionalBody(req: Request): Record<string, unknown> {
  return req.body === undefined ? {} : jsonBody(req);
}

export function backupRoutes(ctx: RouteContext): Router {
  const router = Router();
  const { store } = ctx;

  function existingBackup(id: string): BackupRow {
    const row = store.backups.get(id);
    if (!row) throw notFound('backup', id);
    return row;
  }

  router.post('/v1/databases/:id/backups', route((req) => {
    const databaseId = pathId(req);
    const clientToken = optionalString(optionalBody(req), 'client_token', 255) ?? `generated-${randomUUID()}`;
    const now = ctx.now();
    const { row, created } = store.transaction(() => {
      const found = store.backups.findByToken(clientToken);
      if (found) {
        if (found.database_id !== databaseId) {
          throw new SandboxApiError(409, 'conflict', `client_token "${clientToken}" was already used for backup ${found.id} of database ${found.database_id}`);
        }
        return { row: found, created: false };
      }
      const database = existingDatabase(store, databaseId);
      const content = backupContent(database);
      const startedAt = Math.max(now, store.activities.queueEnd(database));
      return store.backups.insertOrFind({
        id: randomUUID(), client_token: clientToken, database_id: database.id, database_type: database.type,
        data_seed: database.data_seed, data_bytes: database.data_bytes, manifest: content.manifest,
        size_bytes: content.sizeBytes, checksum: content.checksum,
        created_at_ms: now, started_at_ms: startedAt, completed_at_ms: startedAt + ctx.provisionMs,
      });
    });
    return { status: created ? 201 : 200, body: { backup: backupBody(row, now) } };
  }));

  router.get('/v1/databases/:id/backups', route((req) => {
    const database = existingDatabase(store, pathId(req));
    const now = ctx.now();
    return { status: 200, body: { backups: store.backups.list(database.id).map((b) => backupBody(b, now)) } };
  }));

  router.get('/v1/backups', route((req) => {
    const token = clientTokenFilter(req);
    const databaseId = databaseIdFilter(req);
    const rows = token === undefined ? store.backups.list(databaseId) : [store.backups.findByToken(token)].filter((r) => r !== undefined);
    const now = ctx.now();
    const matching = rows.filter((r) => databaseId === undefined || r.database_id === databaseId);
    return { status: 200, body: { backups: matching.map((b) => backupBody(b, now)) } };
  }));

  router.get('/v1/backups/:id', route((req) => ({ status: 200, body: { backup: backupBody(existingBackup(pathId(req)), ctx.now()) } })));

  router.delete('/v1/backups/:id', route((req) => {
    const id = pathId(req);
    if (!store.backups.delete(id)) throw notFound('backup', id);
    return { status: 204 };
  }));

  router.post('/v1/databases/:id/restore', route((req) => {
    const databaseId = pathId(req);
    const body = jsonBody(req);
    const backupId = requiredString(body, 'backup_id');
    const clientToken = optionalString(body, 'client_token', 255) ?? `generated-${randomUUID()}`;
    const now = ctx.now();
    const { database, restore, created } = store.transaction(() => {
      const found = store.restores.findByToken(clientToken);
      if (found) {
        if (found.database_id !== databaseId || found.backup_id !== backupId) {
          throw new SandboxApiError(409, 'conflict', `client_token "${clientToken}" was already used to restore backup ${found.backup_id} into database ${found.database_id}`);
        }
        return { database: existingDatabase(store, databaseId), restore: found, created: false };
      }
      const target = existingDatabase(store, databaseId);
      const backup = store.backups.get(backupId);
      if (!backup) throw unprocessable('backup_id', `backup_id "${backupId}" is not a backup of this account`);
      if (backup.database_type !== target.type) {
        throw unprocessable('backup_id', `backup ${backupId} is of a ${backup.database_type} database; it cannot be restored into ${target.type} database ${target.id}`);
      }
      if (backupBody(backup, now).status !== 'completed') {
        throw new SandboxApiError(409, 'conflict', `backup ${backupId} is ${backupBody(backup, now).status}; only a completed backup can be restored`);
      }
      const startedAt = Math.max(now, store.activities.queueEnd(target));
      const restore = store.restores.insert({
        id: randomUUID(), client_token: clientToken, database_id: target.id, backup_id: backup.id,
        created_at_ms: now, started_at_ms: startedAt, completed_at_ms: startedAt + ctx.provisionMs,
      });
      return { database: store.databases.restoreData(target.id, backup) ?? target, restore, created: true };
    });
    return { status: created ? 201 : 200, body: { database: showDatabase(store, database, now), restore: restoreBody(restore, now) } };
  }));

  router.get('/v1/databases/:id/restores', route((req) => {
    const database = existingDatabase(store, pathId(req));
    const now = ctx.now();
    return { status: 200, body: { restores: store.restores.list(database.id).map((r) => restoreBody(r, now)) } };
  }));

  return router;
}
