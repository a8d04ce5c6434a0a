/**
 * @module The sandbox's `/v1/apps` API: apps hosted on a sandbox server, created idempotently
 * per client token. A PATCH that carries configuration — changed or not — and
 * `POST /v1/apps/{id}/deploy` roll out a new release; a PATCH of `state` alone starts or stops
 * the current one. Each move is recorded in the app's log (app-rollout.ts).
 */
import { randomUUID } from 'node:crypto';
import { Router, type Request } from 'express';
import { notFound, unprocessable } from '../api-error.js';
import { clientTokenFilter, jsonBody, optionalChoice, optionalString, pathId, requiredString, type JsonObject } from '../body-fields.js';
import { releaseDigest } from '../release-digest.js';
import { route } from '../reply.js';
import type { AppRow } from '../store/apps-table.js';
import { appBody, carriesConfiguration, parseStoredConfig, readReleaseConfig } from './app-representation.js';
import { interruptedLine, redeployRollout, releaseRollout, stateRollout, type Rollout } from './app-rollout.js';
import type { RouteContext } from './route-context.js';

const STATES = ['running', 'stopped'] as const;

/** A body that may be absent (`POST` with no content) reads as `{}`. */
function optionalBody(req: Request): JsonObject {
  return req.body === undefined ? {} : jsonBody(req);
}

export function appRoutes(ctx: RouteContext): Router {
  const router = Router();
  const { store } = ctx;

  function existing(id: string): AppRow {
    const row = store.apps.get(id);
    if (!row) throw notFound('app', id);
    return row;
  }

  /** Applies a move to an existing app: takes back what an interrupted transition would still have logged, then records this one. */
  function apply(current: AppRow, rollout: Rollout, fields: { config_json: string; release: number; release_digest: string }, nowMs: number, by: string): AppRow {
    const lines = rollout.lines;
    if (rollout.replacesTransition) {
      const cut = interruptedLine(current, nowMs, by);
      store.appLogs.withdrawAfter(current.id, nowMs);
      if (cut) lines.unshift(cut);
    }
    store.appLogs.append(current.id, lines);
    return store.apps.update(current.id, { ...fields, ...rollout.change, updated_at_ms: nowMs }) ?? current;
  }

  router.get('/v1/apps', route((req) => {
    const token = clientTokenFilter(req);
    const rows = token === undefined ? store.apps.list() : [store.apps.findByToken(token)].filter((r) => r !== undefined);
    const now = ctx.now();
    return { status: 200, body: { apps: rows.map((r) => appBody(r, now)) } };
  }));

  router.post('/v1/apps', route((req) => {
    const body = jsonBody(req);
    const name = requiredString(body, 'name', 63);
    const serverId = requiredString(body, 'server_id');
    const config = readReleaseConfig(body, undefined);
    const state = optionalChoice(body, 'state', STATES) ?? 'running';
    const clientToken = optionalString(body, 'client_token', 255) ?? `generated-${randomUUID()}`;
    const now = ctx.now();
    const { row, created } = store.transaction(() => {
      const found = store.apps.findByToken(clientToken);
      if (found) return { row: found, created: false };
      if (!store.servers.get(serverId)) throw unprocessable('server_id', `server_id "${serverId}" is not a server of this account`);
      const rollout = releaseRollout(1, config, state, now, ctx.provisionMs);
      const inserted = store.apps.insertOrFind({
        id: randomUUID(), client_token: clientToken, name, server_id: serverId, config_json: JSON.stringify(config),
        release: 1, release_digest: releaseDigest(config), ...rollout.change, created_at_ms: now, updated_at_ms: now,
      });
      if (inserted.created) store.appLogs.append(inserted.row.id, rollout.lines);
      return inserted;
    });
    return { status: created ? 201 : 200, body: { app: appBody(row, now) } };
  }));

  router.get('/v1/apps/:id', route((req) => ({ status: 200, body: { app: appBody(existing(pathId(req)), ctx.now()) } })));

  router.patch('/v1/apps/:id', route((req) => {
    const id = pathId(req);
    const body = jsonBody(req);
    const state = optionalChoice(body, 'state', STATES);
    const now = ctx.now();
    const row = store.transaction(() => {
      const current = existing(id);
      const stored = parseStoredConfig(current);
      if (!carriesConfiguration(body)) {
        const rollout = stateRollout(current, stored, state ?? current.state, now, ctx.provisionMs);
        if (!rollout) return current;
        const fields = { config_json: current.config_json, release: current.release, release_digest: current.release_digest };
        return apply(current, rollout, fields, now, rollout.change.state === 'stopped' ? 'a stop' : 'a start');
      }
      const config = readReleaseConfig(body, stored);
      const release = current.release + 1;
      const rollout = redeployRollout(current, config, state ?? current.state, now, ctx.provisionMs);
      const fields = { config_json: JSON.stringify(config), release, release_digest: releaseDigest(config) };
      return apply(current, rollout, fields, now, `release ${release}`);
    });
    return { status: 200, body: { app: appBody(row, now) } };
  }));

  router.post('/v1/apps/:id/deploy', route((req) => {
    const id = pathId(req);
    optionalBody(req);
    const now = ctx.now();
    const row = store.transaction(() => {
      const current = existing(id);
      const config = parseStoredConfig(current);
      const release = current.release + 1;
      const rollout = redeployRollout(current, config, 'running', now, ctx.provisionMs);
      const fields = { config_json: current.config_json, release, release_digest: releaseDigest(config) };
      return apply(current, rollout, fields, now, `release ${release}`);
    });
    return { status: 200, body: { app: appBody(row, now) } };
  }));

  router.delete('/v1/apps/:id', route((req) => {
    const id = pathId(req);
    if (!store.apps.delete(id)) throw notFound('app', id);
    return { status: 204 };
  }));

  return router;
}
