/**
 * @module The sandbox's `/v1/servers` API: list (optionally by client token), create (idempotent
 * per client token), read, resize / power through PATCH, power actions, metrics and delete.
 * `PUT /v1/servers/{id}/metrics` holds a server's figures where a test wants them (a number per
 * metric, held until changed; null returns it to the simulation).
 */
import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { notFound, SandboxApiError, unprocessable } from '../api-error.js';
import { clientTokenFilter, jsonBody, optionalChoice, optionalString, pathId, requiredChoice, requiredString } from '../body-fields.js';
import { availableRegionSlugs, findRegion, findSize, SIZES } from '../catalog.js';
import { route } from '../reply.js';
import { simulatedMetrics, withHeldFigures } from '../simulated-metrics.js';
import { METRIC_FIELDS, type MetricOverrides } from '../store/metric-overrides-table.js';
import type { ServerRow } from '../store/servers-table.js';
import { isBusy } from '../transitions.js';
import type { RouteContext } from './route-context.js';
import { powerChange, serverBody, type PowerTarget } from './server-representation.js';

const ACTION_TYPES = ['power_on', 'power_off', 'reboot'] as const;
const ACTION_TARGET: Record<(typeof ACTION_TYPES)[number], PowerTarget> = { power_on: 'running', power_off: 'stopped', reboot: 'reboot' };

function checkRegion(slug: string): void {
  const region = findRegion(slug);
  const available = availableRegionSlugs().join(', ');
  if (!region) throw unprocessable('region', `region "${slug}" is not a region of this vendor (regions: ${available})`);
  if (!region.available) throw unprocessable('region', `region "${slug}" is not available for new servers (available regions: ${available})`);
}

function checkSize(slug: string, region: string): void {
  const size = findSize(slug);
  if (!size) throw unprocessable('size', `size "${slug}" is not a size of this vendor (sizes: ${SIZES.map((s) => s.slug).join(', ')})`);
  if (!size.regions.includes(region)) {
    throw unprocessable('size', `size "${slug}" is not offered in region "${region}" (offered in: ${size.regions.join(', ')})`);
  }
}

/** `{cpu_percent?, memory_percent?, disk_percent?}`: each a number from 0 to 100, or null; nothing else. */
function metricOverridesBody(body: Record<string, unknown>): MetricOverrides {
  const unknown = Object.keys(body).filter((k) => !(METRIC_FIELDS as readonly string[]).includes(k));
  if (unknown.length > 0) throw unprocessable(unknown[0]!, `unknown field ${unknown[0]}; the fields are ${METRIC_FIELDS.join(', ')}`);
  const change: MetricOverrides = {};
  for (const field of METRIC_FIELDS) {
    const value = body[field];
    if (value === undefined) continue;
    if (value !== null && (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100)) {
      throw unprocessable(field, `${field} must be a number from 0 to 100, or null to return to the simulation`);
    }
    change[field] = value;
  }
  return change;
}

export function serverRoutes(ctx: RouteContext): Router {
  const router = Router();
  const { store } = ctx;

  function existing(id: string): ServerRow {
    const row = store.servers.get(id);
    if (!row) throw notFound('server', id);
    return row;
  }

  router.get('/v1/servers', route((req) => {
    const token = clientTokenFilter(req);
    const rows = token === undefined ? store.servers.list() : [store.servers.findByToken(token)].filter((r) => r !== undefined);
    const now = ctx.now();
    return { status: 200, body: { servers: rows.map((r) => serverBody(r, now)) } };
  }));

  router.post('/v1/servers', route((req) => {
    const body = jsonBody(req);
    const name = requiredString(body, 'name');
    const region = requiredString(body, 'region');
    checkRegion(region);
    const size = requiredString(body, 'size');
    checkSize(size, region);
    const image = requiredString(body, 'image');
    const clientToken = optionalString(body, 'client_token', 255) ?? `generated-${randomUUID()}`;
    const now = ctx.now();
    const { row, created } = store.servers.insertOrFind({
      id: randomUUID(), client_token: clientToken, name, region, size, image, power: 'running',
      busy_status: 'provisioning', busy_until_ms: now + ctx.provisionMs, created_at_ms: now,
    });
    return { status: created ? 201 : 200, body: { server: serverBody(row, now) } };
  }));

  router.get('/v1/servers/:id', route((req) => ({ status: 200, body: { server: serverBody(existing(pathId(req)), ctx.now()) } })));

  router.patch('/v1/servers/:id', route((req) => {
    const id = pathId(req);
    const body = jsonBody(req);
    const size = optionalString(body, 'size', 64) ?? undefined;
    const status = optionalChoice(body, 'status', ['running', 'stopped'] as const);
    const row = store.transaction(() => {
      const current = existing(id);
      const now = ctx.now();
      if (size !== undefined) checkSize(size, current.region);
      const power = status === undefined ? {} : powerChange(current, status, now, ctx.provisionMs);
      return store.servers.update(id, { ...power, size }) ?? current;
    });
    return { status: 200, body: { server: serverBody(row, ctx.now()) } };
  }));

  router.post('/v1/servers/:id/actions', route((req) => {
    const id = pathId(req);
    const type = requiredChoice(jsonBody(req), 'type', ACTION_TYPES);
    const now = ctx.now();
    const row = store.transaction(() => {
      const current = existing(id);
      return store.servers.update(id, powerChange(current, ACTION_TARGET[type], now, ctx.provisionMs)) ?? current;
    });
    const action = {
      id: randomUUID(), type, resource_id: row.id,
      status: isBusy(row, now) ? 'in-progress' : 'completed',
      started_at: new Date(now).toISOString(),
    };
    return { status: 201, body: { action } };
  }));

  router.get('/v1/servers/:id/metrics', route((req) => {
    const row = existing(pathId(req));
    const now = ctx.now();
    const running = serverBody(row, now).status === 'running';
    return { status: 200, body: withHeldFigures(simulatedMetrics(row.id, row.created_at_ms, running, now), store.metricOverrides.get(row.id)) };
  }));

  router.put('/v1/servers/:id/metrics', route((req) => {
    const id = pathId(req);
    const change = metricOverridesBody(jsonBody(req));
    const held = store.transaction(() => {
      existing(id);
      return store.metricOverrides.apply(id, change);
    });
    const row = existing(id);
    const now = ctx.now();
    const running = serverBody(row, now).status === 'running';
    return { status: 200, body: withHeldFigures(simulatedMetrics(row.id, row.created_at_ms, running, now), held) };
  }));

  router.delete('/v1/servers/:id', route((req) => {
    const id = pathId(req);
    store.transaction(() => {
      existing(id);
      const { databases, apps } = store.servers.dependents(id);
      if (databases > 0 || apps > 0) {
        throw new SandboxApiError(409, 'conflict', `server "${id}" still hosts ${databases} database(s) and ${apps} app(s); delete them first`);
      }
      store.servers.delete(id);
    });
    return { status: 204 };
  }));

  return router;
}
