/**
 * @module The Scaleway driver: Instances (servers.ts), power actions, zones as regions (the
 * document's zone enum: Scaleway has no endpoint listing them) and server types read zone by
 * zone from `ListServersTypes` (every page, by `page` and `X-Total-Count`), on the kit's shared
 * catalog and metrics refusal. Its credential test tells a refused secret key (401) from a key
 * that may not work in the Provider's project (403 on a list filtered by that project).
 */
import type { CallOptions, CredentialTest, PowerAction, Region, ServerObserved, Size } from '../contract.js';
import { VendorAuthError, VendorRejectedError } from '../errors.js';
import type { Catalog } from '../kit/catalog-cache.js';
import { KitCloudDriver } from '../kit/kit-cloud-driver.js';
import { readAllPages } from '../kit/pagination.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { ScalewayServers } from './servers.js';
import { nextPage, readServerType } from './wire-format.js';
import { ZONES, zoneName } from './zones.js';

/** Items per page cairn asks for (Scaleway allows up to 100). */
const PER_PAGE = 100;

const KEY_HELP = 'create an API key under IAM → API keys in the Scaleway console and give its secret key';

export class ScalewayCloudDriver extends KitCloudDriver {
  readonly servers: ScalewayServers;

  constructor(
    client: VendorHttpClient,
    private readonly describeEndpoint: string,
    private readonly projectId: string,
    pollMs = 500,
  ) {
    super(client, {
      vendor: 'scaleway',
      describeEndpoint,
      credentialProbePath: `/instance/v1/zones/${ZONES[0] ?? 'fr-par-1'}/servers`,
      tokenHelp: KEY_HELP,
      metricsUnsupported:
        "Scaleway's Instance API reports no CPU, memory or disk use (its Cockpit metrics are a separate product that needs its own agent)",
    });
    this.servers = new ScalewayServers(client, projectId, pollMs, (region, size) => this.catalog.checkPlacement(region, size));
  }

  power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    return this.servers.power(externalId, action, options);
  }

  /** One list of servers in the project, asked for one item: 401 is the key, 403 the project. */
  override async testCredentials(options: CallOptions = {}): Promise<CredentialTest> {
    const zone = ZONES[0] ?? 'fr-par-1';
    try {
      await this.client.call({ method: 'GET', path: `/instance/v1/zones/${zone}/servers`, query: { project: this.projectId, per_page: 1 }, doing: 'test the secret key and project', signal: options.signal });
      return { ok: true, message: `scaleway: the secret key is accepted at ${this.describeEndpoint} and may list servers in project ${this.projectId}` };
    } catch (error) {
      if (error instanceof VendorAuthError && error.status === 403) {
        return { ok: false, message: `${error.message}: the secret key is valid but may not list servers in project ${this.projectId}; check project_id (console → Project settings) and that the key's IAM policy covers Instances in that project` };
      }
      if (error instanceof VendorAuthError) return { ok: false, message: `${error.message}: the secret key was refused; ${KEY_HELP}` };
      if (error instanceof VendorRejectedError) return { ok: false, message: error.message };
      throw error;
    }
  }

  protected async listCatalog(): Promise<Catalog> {
    const regions: Region[] = ZONES.map((zone) => ({ slug: zone, name: zoneName(zone), available: true }));
    const byType = new Map<string, Size>();
    for (const zone of ZONES) {
      for (const size of await this.serverTypes(zone)) {
        const known = byType.get(size.slug);
        if (known) known.regions.push(zone);
        else byType.set(size.slug, size);
      }
    }
    return { regions, sizes: [...byType.values()] };
  }

  /** The server types offered in `zone`, every page. */
  private serverTypes(zone: string): Promise<Size[]> {
    const doing = `list server types in ${zone}`;
    let seen = 0;
    return readAllPages(async (at) => {
      const page = at === undefined ? 1 : Number(at);
      const answer = await this.client.call({ method: 'GET', path: `/instance/v1/zones/${zone}/products/servers`, query: { page, per_page: PER_PAGE }, doing });
      const servers = WireReader.of(answer.body, `scaleway: ${doing}`).object('servers');
      // `servers` is checked to be an object above: a map of commercial type → its figures.
      const types = Object.keys((answer.body as { servers: Record<string, unknown> }).servers);
      const items = types.map((type) => readServerType(type, servers.object(type), zone));
      seen += items.length;
      return { items, next: nextPage(page, PER_PAGE, answer.headers.get('x-total-count'), seen, items.length) };
    }, `scaleway: ${doing}`);
  }
}
