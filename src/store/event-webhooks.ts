/**
 * @module Event webhooks as stored (migration 15): a tenant's subscriptions, their delivery
 * outbox, and the dispatcher's cursor over the event log. `dispatch` turns the events after the
 * cursor into deliveries and advances the cursor in one transaction, so each event becomes each
 * matching webhook's delivery exactly once whatever crashes; the delivery loop sends what is due
 * and marks it after, retrying with backoff until delivered or out of attempts.
 */
import { randomUUID } from 'node:crypto';
import type { SqlConnection } from './connection.js';
import { NotFoundError } from '../model/errors.js';
import { OutboxTable, type DeliveryStatus, type OutboxDelivery } from './outbox-table.js';
import type { RecordedEvent } from './events.js';
import { newestFirstPage } from './newest-first-page.js';
import { decodeCursor, toPage, type Page, type PageRequest } from './paging.js';
import { nowIso, StatementCache } from './sqlite.js';

export interface StoredEventWebhook {
  id: string;
  tenant: string;
  url: string;
  events: string[];
  description: string | null;
  /** The newest event id when it was made: it gets only later events. */
  afterEventId: number;
  createdAt: string;
}

export interface StoredEventDelivery extends OutboxDelivery {
  webhookId: string;
  eventId: number;
  event: string;
  resource: { kind: string; id: string; name: string };
  /** The exact JSON body sent on every attempt. */
  body: string;
}

/** What an event becomes for its webhooks: its name and the body, given the delivery id. */
export interface MappedEvent {
  name: string;
  body(deliveryId: string): string;
}

interface WebhookRow {
  id: string; tenant: string; url: string; events: string; description: string | null; after_event_id: number; created_at: string;
}

interface DeliveryRow {
  id: string; webhook_id: string; tenant: string; event_id: number; event: string; resource_kind: string; resource_id: string;
  resource_name: string; body: string; status: DeliveryStatus; attempts: number; last_error: string | null;
  next_attempt_at: string; delivered_at: string | null; created_at: string;
}

function toWebhook(row: WebhookRow): StoredEventWebhook {
  return {
    id: row.id, tenant: row.tenant, url: row.url, events: JSON.parse(row.events) as string[], description: row.description,
    afterEventId: row.after_event_id, createdAt: row.created_at,
  };
}

function toDelivery(row: DeliveryRow): StoredEventDelivery {
  return {
    id: row.id, webhookId: row.webhook_id, tenant: row.tenant, eventId: row.event_id, event: row.event,
    resource: { kind: row.resource_kind, id: row.resource_id, name: row.resource_name }, body: row.body, status: row.status,
    attempts: row.attempts, lastError: row.last_error, nextAttemptAt: row.next_attempt_at, deliveredAt: row.delivered_at, createdAt: row.created_at,
  };
}

export class EventWebhooks {
  private readonly sql: StatementCache;
  /** Due, delivered, failed: the SQL alerts' outbox shares. */
  readonly outbox: OutboxTable<DeliveryRow>;

  constructor(private readonly db: SqlConnection) {
    this.sql = new StatementCache(db);
    this.outbox = new OutboxTable<DeliveryRow>(db, 'event_webhook_deliveries');
  }

  create(tenant: string, input: { url: string; events: readonly string[]; description: string | null }): StoredEventWebhook {
    const id = randomUUID();
    this.sql.get(
      `INSERT INTO event_webhooks (id, tenant, url, events, description, after_event_id, created_at)
       VALUES (?, ?, ?, ?, ?, (SELECT COALESCE(MAX(id), 0) FROM events), ?)`,
    ).run(id, tenant, input.url, JSON.stringify(input.events), input.description, nowIso());
    return this.getInTenant(tenant, id);
  }

  /** The tenant's webhook; another tenant's is not found. */
  getInTenant(tenant: string, id: string): StoredEventWebhook {
    const row = this.sql.get(`SELECT * FROM event_webhooks WHERE tenant = ? AND id = ?`).get(tenant, id) as WebhookRow | undefined;
    if (!row) throw new NotFoundError(`no webhook has id ${id}`);
    return toWebhook(row);
  }

  get(id: string): StoredEventWebhook | undefined {
    const row = this.sql.get(`SELECT * FROM event_webhooks WHERE id = ?`).get(id) as WebhookRow | undefined;
    return row && toWebhook(row);
  }

  /** A tenant's webhooks, newest first. */
  page(tenant: string, request: PageRequest): Page<StoredEventWebhook> {
    return newestFirstPage<WebhookRow, StoredEventWebhook>(this.sql, { table: 'event_webhooks', timeColumn: 'created_at' }, tenant, request, toWebhook, (row) => row.created_at);
  }

  /** Removes the webhook and its deliveries (the caller removes its secret in the same transaction). */
  delete(id: string): void {
    this.sql.get(`DELETE FROM event_webhooks WHERE id = ?`).run(id);
  }

  /** A webhook's deliveries, newest event first. */
  deliveries(webhookId: string, request: PageRequest): Page<StoredEventDelivery> {
    const after = request.cursor === undefined ? undefined : decodeCursor(request.cursor, 1);
    const rows = (after === undefined
      ? this.sql.get(`SELECT * FROM event_webhook_deliveries WHERE webhook_id = ? ORDER BY event_id DESC LIMIT ?`).all(webhookId, request.limit + 1)
      : this.sql.get(`SELECT * FROM event_webhook_deliveries WHERE webhook_id = ? AND event_id < ? ORDER BY event_id DESC LIMIT ?`)
        .all(webhookId, Number(after[0]), request.limit + 1)) as DeliveryRow[];
    return toPage(rows.map(toDelivery), request.limit, (d) => [d.eventId]);
  }

  /** The id of the newest event already dispatched. */
  cursor(): number {
    return (this.sql.get(`SELECT last_event_id FROM event_dispatch_cursor WHERE singleton = 1`).get() as { last_event_id: number }).last_event_id;
  }

  /**
   * Turns up to `limit` events after the cursor into pending deliveries for the webhooks of
   * their tenant that subscribe to what `map` names them (events it maps to nothing are passed
   * over), and advances the cursor past them: all in one transaction. Returns how many
   * deliveries it wrote, and whether events remain.
   */
  dispatch(events: { after(id: number, limit: number): RecordedEvent[] }, map: (event: RecordedEvent) => MappedEvent | undefined, limit = 200):
    { written: number; more: boolean } {
    return this.db.transaction(() => {
      const batch = events.after(this.cursor(), limit);
      let written = 0;
      const now = nowIso();
      for (const event of batch) {
        const mapped = map(event);
        if (!mapped) continue;
        const webhooks = (this.sql.get(`SELECT * FROM event_webhooks WHERE tenant = ? AND after_event_id < ?`).all(event.tenant, event.id) as WebhookRow[])
          .map(toWebhook).filter((w) => w.events.includes(mapped.name));
        for (const webhook of webhooks) {
          const id = randomUUID();
          written += this.sql.get(
            `INSERT INTO event_webhook_deliveries (id, webhook_id, tenant, event_id, event, resource_kind, resource_id, resource_name, body, status, next_attempt_at, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT (webhook_id, event_id) DO NOTHING`,
          ).run(id, webhook.id, event.tenant, event.id, mapped.name, event.kind, event.uid, event.name, mapped.body(id), now, now).changes;
        }
      }
      const last = batch.at(-1);
      if (last) this.sql.get(`UPDATE event_dispatch_cursor SET last_event_id = ? WHERE singleton = 1 AND last_event_id < ?`).run(last.id, last.id);
      return { written, more: batch.length === limit };
    }).immediate();
  }

  /** Pending deliveries whose next attempt is due at `now`, oldest first. */
  due(now: string, limit: number): StoredEventDelivery[] {
    return this.outbox.due(now, limit).map(toDelivery);
  }
}
