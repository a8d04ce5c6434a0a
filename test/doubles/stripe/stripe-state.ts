/**
 * @module The Stripe double's state: one collection per object type in creation order, Stripe's
 * list paging over it (newest first, `limit`, `starting_after`, `ending_before`), and `expand[]`
 * of ids into the objects they name. Routes and test controls read and change it.
 */
import { listOf, type StripeObject } from './stripe-objects.js';
import { invalidParam, noSuch, optionalInteger, optionalString, type StripeParams } from './stripe-wire.js';

/** The objects of one type, by id, in creation order. */
export class Collection {
  private readonly byId = new Map<string, StripeObject>();

  /** `kind` as Stripe names it in errors ("customer", "checkout.session"). */
  constructor(readonly kind: string, readonly prefix: string) {}

  add(object: StripeObject): StripeObject {
    this.byId.set(object.id, object);
    return object;
  }

  find(id: string): StripeObject | undefined {
    return this.byId.get(id);
  }

  /** The object, or Stripe's `resource_missing` (404 for a path id, 400 naming `param` for a parameter). */
  get(id: string, param?: string): StripeObject {
    const object = this.byId.get(id);
    if (!object) throw noSuch(this.kind, id, param);
    return object;
  }

  all(): StripeObject[] {
    return [...this.byId.values()];
  }

  /** One page of the objects `keep` accepts, newest first, as Stripe lists them. */
  page(params: StripeParams, url: string, keep: (object: StripeObject) => boolean = () => true): ReturnType<typeof listOf<StripeObject>> {
    const limit = optionalInteger(params, 'limit', { min: 1, max: 100 }) ?? 10;
    const startingAfter = optionalString(params, 'starting_after');
    const endingBefore = optionalString(params, 'ending_before');
    if (startingAfter && endingBefore) throw invalidParam('ending_before', 'You may only specify one of these parameters: starting_after, ending_before.');
    const matching = this.all().filter(keep).reverse();
    if (endingBefore !== undefined) {
      const end = this.indexIn(matching, endingBefore, 'ending_before');
      const start = Math.max(0, end - limit);
      return listOf(matching.slice(start, end), url, start > 0);
    }
    const start = startingAfter === undefined ? 0 : this.indexIn(matching, startingAfter, 'starting_after') + 1;
    return listOf(matching.slice(start, start + limit), url, start + limit < matching.length);
  }

  private indexIn(objects: StripeObject[], id: string, param: string): number {
    const index = objects.findIndex((object) => object.id === id);
    if (index < 0) throw noSuch(this.kind, id, param);
    return index;
  }
}

export class StripeState {
  readonly customers = new Collection('customer', 'cus_');
  readonly prices = new Collection('price', 'price_');
  readonly checkoutSessions = new Collection('checkout.session', 'cs_');
  readonly portalSessions = new Collection('billing_portal.session', 'bps_');
  readonly subscriptions = new Collection('subscription', 'sub_');
  readonly invoices = new Collection('invoice', 'in_');
  /** Line items of each checkout session, served only through `expand[]=line_items`. */
  readonly checkoutLineItems = new Map<string, { price: StripeObject; quantity: number }[]>();
  /** What each checkout session's subscription will be made with (`subscription_data`). */
  readonly checkoutTerms = new Map<string, { trialPeriodDays: number | null; subscriptionMetadata: Record<string, string> }>();

  private collections(): Collection[] {
    return [this.customers, this.prices, this.checkoutSessions, this.portalSessions, this.subscriptions, this.invoices];
  }

  /** Any object the double holds, by id. */
  findAny(id: string): StripeObject | undefined {
    for (const collection of this.collections()) {
      if (id.startsWith(collection.prefix)) {
        const object = collection.find(id);
        if (object) return object;
      }
    }
    return undefined;
  }

  /** A copy of `object` with each `expand[]` path (`customer`, `latest_invoice`, `data.customer`, `items.data.price`) replaced by the object its id names. */
  expand(object: unknown, paths: string[]): unknown {
    let result = structuredClone(object);
    for (const path of paths) result = this.expandPath(result, path.split('.'), path);
    return result;
  }

  private expandPath(value: unknown, segments: string[], path: string): unknown {
    const [head, ...rest] = segments;
    if (head === undefined || value === null || typeof value !== 'object') return value;
    const record = value as Record<string, unknown>;
    if (head === 'data' && record.object === 'list' && Array.isArray(record.data)) {
      record.data = record.data.map((item) => this.expandPath(item, rest, path));
      return record;
    }
    if (!(head in record)) throw invalidParam('expand', `This property cannot be expanded (${path}).`);
    let field = record[head];
    if (typeof field === 'string') {
      const target = this.findAny(field);
      if (!target) throw invalidParam('expand', `This property cannot be expanded (${path}).`);
      field = structuredClone(target);
    }
    record[head] = rest.length > 0 ? this.expandPath(field, rest, path) : field;
    return record;
  }
}
