/**
 * @module Who may log in to a sandbox database: `POST /v1/databases/{id}/password` sets the
 * user's password (kept only as a salted hash), and `POST /v1/databases/{id}/login` checks a
 * username and password against it — 200 or 401 — so tests can tell which password is in force.
 */
import { Router } from 'express';
import { SandboxApiError } from '../api-error.js';
import { jsonBody, pathId, requiredString } from '../body-fields.js';
import { hashPasswordOffLoop, readPassword, verifyPassword } from '../database-passwords.js';
import { route } from '../reply.js';
import type { DatabaseRow } from '../store/databases-table.js';
import { existingDatabase, showDatabase } from './database-representation.js';
import type { RouteContext } from './route-context.js';

export function databaseAccessRoutes(ctx: RouteContext): Router {
  const router = Router();
  const { store } = ctx;

  const existing = (id: string): DatabaseRow => existingDatabase(store, id);

  router.post('/v1/databases/:id/password', route((req) => {
    const id = pathId(req);
    const password = readPassword(jsonBody(req));
    existing(id);
    return hashPasswordOffLoop(password).then((passwordHash) => {
      const now = ctx.now();
      const row = store.transaction(() => {
        existing(id);
        return store.databases.setPasswordHash(id, passwordHash, now) ?? existing(id);
      });
      return { status: 200, body: { database: showDatabase(store, row, now) } };
    });
  }));

  router.post('/v1/databases/:id/login', route((req) => {
    const row = existing(pathId(req));
    const body = jsonBody(req);
    const username = requiredString(body, 'username', 255);
    const password = requiredString(body, 'password', 1024);
    const passwordMatches = verifyPassword(password, row.password_hash);
    if (!passwordMatches || username !== row.username) {
      throw new SandboxApiError(401, 'unauthorized', `password authentication failed for user "${username}" (simulated database "${row.name}")`);
    }
    return { status: 200, body: { login: { database_id: row.id, username, ok: true } } };
  }));

  return router;
}
