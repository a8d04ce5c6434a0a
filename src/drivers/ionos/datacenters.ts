/**
 * @module cairn's virtual data centers at IONOS. IONOS servers live in a virtual data center
 * (VDC) bound to one location; cairn keeps one per location it uses, named `cairn-<location>`
 * (`cairn-de/fra`), found by that name and created when missing, so creating it is idempotent by
 * name (a VDC made by a create whose answer was lost is found the next time). Each has a public
 * LAN (`cairn-public`, found or created the same way) that servers' NICs join, for a public
 * address by DHCP, and, once a managed database is made there, a private LAN (`cairn-private`,
 * likewise) that the database joins (IONOS's DBaaS connects only to private LANs). The list is kept between calls, and read afresh by every lookup by key (so
 * by every create, which looks first) and after a miss; LANs found are kept per data center.
 * Creates running at once in one location wait for the same find-or-create.
 */
import type { CallOptions } from '../contract.js';
import { readAllPages } from '../kit/pagination.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { followRequest } from './requests.js';
import { nextOffset } from './wire-format.js';

const PREFIX = 'cairn-';
/** cairn's LANs in each data center: the public one servers join, the private one managed databases join. */
export const LANS = { public: 'cairn-public', private: 'cairn-private' } as const;
export type LanKind = keyof typeof LANS;
/** Items per page cairn asks for (the document's `limit` allows up to 10,000). */
export const PAGE_SIZE = 1000;

export interface CairnDatacenter {
  id: string;
  location: string;
}

export function datacenterName(location: string): string {
  return `${PREFIX}${location}`;
}

/** What the drivers of one account know of its data centers, and what they are making. */
class DatacenterState {
  known: Promise<CairnDatacenter[]> | undefined;
  /** LANs found or being made, by `<data center id> <kind>`. */
  readonly lans = new Map<string, Promise<number>>();
  /** Data centers being found or made, by location: creates running at once in one location make one. */
  readonly ensuring = new Map<string, Promise<CairnDatacenter>>();
}

export class IonosDatacenters {
  constructor(
    private readonly client: VendorHttpClient,
    private readonly pollMs: number,
    private readonly state: DatacenterState = new DatacenterState(),
  ) {}

  /** Every offset page of a list below `path` (items read at `depth`). */
  list(path: string, depth: number, doing: string, signal?: AbortSignal): Promise<WireReader[]> {
    return readAllPages(async (at) => {
      const offset = Number(at ?? 0);
      const answer = await this.client.call({ method: 'GET', path, query: { depth, offset, limit: PAGE_SIZE }, doing, signal });
      const body = WireReader.of(answer.body, `ionos: ${doing}`);
      const items = body.raw('items') === undefined ? [] : body.array('items');
      return { items, next: nextOffset(body, offset, items.length) };
    }, `ionos: ${doing}`);
  }

  /** cairn's data centers (named `cairn-<location>`); read again when `fresh`. */
  all(options: CallOptions = {}, fresh = false): Promise<CairnDatacenter[]> {
    if (!this.state.known || fresh) {
      const loading = this.list('/datacenters', 1, 'list data centers', options.signal).then((items) =>
        items.flatMap((dc) => {
          const properties = dc.object('properties');
          const name = properties.stringOrNull('name') ?? '';
          const location = properties.string('location');
          return name === datacenterName(location) ? [{ id: dc.string('id'), location }] : [];
        }),
      );
      this.state.known = loading;
      loading.catch(() => {
        if (this.state.known === loading) this.state.known = undefined;
      });
    }
    return this.state.known;
  }

  /** The location of cairn's data center `id`, or undefined when it is not one of cairn's. */
  async locationOf(id: string, options: CallOptions = {}): Promise<string | undefined> {
    const found = (await this.all(options)).find((dc) => dc.id === id) ?? (await this.all(options, true)).find((dc) => dc.id === id);
    return found?.location;
  }

  /** cairn's data center in `location` with its public (or, for managed databases, private) LAN, made when missing. */
  async ensure(location: string, options: CallOptions = {}, kind: LanKind = 'public'): Promise<{ datacenter: CairnDatacenter; lan: number }> {
    let ensuring = this.state.ensuring.get(location);
    if (!ensuring) {
      ensuring = this.findOrCreate(location, options).finally(() => this.state.ensuring.delete(location));
      this.state.ensuring.set(location, ensuring);
    }
    const datacenter = await ensuring;
    return { datacenter, lan: await this.lanOf(datacenter, kind, options) };
  }

  private async findOrCreate(location: string, options: CallOptions): Promise<CairnDatacenter> {
    let datacenter = (await this.all(options)).find((dc) => dc.location === location) ?? (await this.all(options, true)).find((dc) => dc.location === location);
    if (!datacenter) {
      const doing = `create data center "${datacenterName(location)}"`;
      const answer = await this.client.call({ method: 'POST', path: '/datacenters', body: { properties: { name: datacenterName(location), location, description: 'servers made by cairn' } }, doing, signal: options.signal });
      datacenter = { id: WireReader.of(answer.body, `ionos: ${doing}`).string('id'), location };
      await followRequest(this.client, answer, doing, this.pollMs, options.signal);
      this.state.known = undefined;
    }
    return datacenter;
  }

  private lanOf(datacenter: CairnDatacenter, kind: LanKind, options: CallOptions): Promise<number> {
    const key = `${datacenter.id} ${kind}`;
    let lan = this.state.lans.get(key);
    if (!lan) {
      lan = this.findOrCreateLan(datacenter, kind, options);
      this.state.lans.set(key, lan);
      lan.catch(() => this.state.lans.delete(key));
    }
    return lan;
  }

  private async findOrCreateLan(datacenter: CairnDatacenter, kind: LanKind, options: CallOptions): Promise<number> {
    const path = `/datacenters/${encodeURIComponent(datacenter.id)}/lans`;
    const lans = await this.list(path, 1, `list LANs of ${datacenterName(datacenter.location)}`, options.signal);
    const isPublic = kind === 'public';
    const found = lans.find((lan) => {
      const properties = lan.object('properties');
      return properties.stringOrNull('name') === LANS[kind] && (properties.raw('public') === true) === isPublic;
    });
    if (found) return Number(found.string('id'));
    const doing = `create the ${kind} LAN of ${datacenterName(datacenter.location)}`;
    const answer = await this.client.call({ method: 'POST', path, body: { properties: { name: LANS[kind], public: isPublic } }, doing, signal: options.signal });
    const id = Number(WireReader.of(answer.body, `ionos: ${doing}`).string('id'));
    await followRequest(this.client, answer, doing, this.pollMs, options.signal);
    return id;
  }
}

const shared = new Map<string, DatacenterState>();

/**
 * Data centers through `client`, sharing what is known and being made with every other driver of
 * the account at that endpoint (`account`, as its rate budget is keyed): a server and a database
 * created at once in a new location find or make one data center between them, not one each.
 */
export function sharedDatacenters(account: string, client: VendorHttpClient, pollMs = 500): IonosDatacenters {
  let state = shared.get(account);
  if (!state) {
    state = new DatacenterState();
    shared.set(account, state);
  }
  return new IonosDatacenters(client, pollMs, state);
}
