/**
 * @module The sandbox's `/v1/apps` API: apps hosted on a sandbox server, created idempotently
 * per client token; a PATCH that changes the deploy-relevant configuration is a new release.
 */
import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { notFound, unprocessable } from '../api-error.js';
import { clientTokenFilter, jsonBody, optionalChoice, optionalString, pathId, requiredString } from '../body-fields.js';
import { releaseDigest } from '../release-digest.js';
import { route } from '../reply.js';
import type { AppRow } from '../store/apps-table.js';
import { startTransition } from '../transitions.js';
import { appBody, parseStoredConfig, readReleaseConfig } from './app-representation.js';
import type { RouteContext } from './route-context.js';

const STATES = ['running', 'stopped'] as const;

export function appRoutes(ctx: RouteContext): Router {
  const router = Router();
  const { store } = ctx;

  function existing(id: string): AppRow {
    const row = store.apps.get(id);
    if (!row) throw notFound('app', id);
    return row;
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
      return store.apps.insertOrFind({
        id: randomUUID(), client_token: clientToken, name, server_id: serverId, config_json: JSON.stringify(config), state,
        release: 1, release_digest: releaseDigest(config), ...startTransition('deploying', now, ctx.provisionMs),
        created_at_ms: now, updated_at_ms: now,
      });
    });
    return { status: created ? 201 : 200, body: { app: appBody(row, now) } };
  }));

  router.get('/v1/apps/:id', route((req) => ({ status: 200, body: { app: appBody(existing(pathId(req)), ctx.now()) } })));

  router.patch('/v1/apps/:id', route((req) => {
    const id = pathId(req);
    const body = jsonBody(req);
    const state = optionalChoice(body, 'state', STATES);
    const row = store.transaction(() => {
      const current = existing(id);
      const config = readReleaseConfig(body, parseStoredConfig(current));
      const digest = releaseDigest(config);
      const newRelease = digest !== current.release_digest;
      const nextState = state ?? current.state;
      if (!newRelease && nextState === current.state) return current;
      const now = ctx.now();
      const transition = nextState === 'stopped'
        ? (current.state === 'running' ? startTransition('stopping', now, ctx.provisionMs) : { busy_status: null, busy_until_ms: 0 })
        : startTransition('deploying', now, ctx.provisionMs);
      return store.apps.update(id, {
        config_json: JSON.stringify(config), state: nextState, release: current.release + (newRelease ? 1 : 0),
        release_digest: digest, ...transition, updated_at_ms: now,
      }) ?? current;
    });
    return { status: 200, body: { app: appBody(row, ctx.now()) } };
  }));

  router.delete('/v1/apps/:id', route((req) => {
    const id = pathId(req);
    if (!store.apps.delete(id)) throw notFound('app', id);
    return { status: 204 };
  }));

  return router;
}
