/**
 * @module The Exoscale driver: Compute instances (instances.ts), power actions, zones and
 * instance types on the kit's shared catalog, templates found by name per zone, and a credential
 * test by its cheapest signed read (`list-zones`). Exoscale's API is one host per zone
 * (`https://api-<zone>.exoscale.com/v2`); behind `spec.endpoint` one URL serves every zone.
 */
import type { CallOptions, CredentialTest, PowerAction, ServerObserved } from '../contract.js';
import { VendorAuthError, VendorRejectedError } from '../errors.js';
import type { Catalog } from '../kit/catalog-cache.js';
import { KitCloudDriver } from '../kit/kit-cloud-driver.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { ExoscaleInstances } from './instances.js';
import { isUuid, readInstanceType, readTemplate, readZone, type Template } from './wire-format.js';

/** The zone whose API answers zone-wide reads (zones, instance types): Exoscale's default. */
export const HOME_ZONE = 'ch-gva-2';

export interface ExoscaleApis {
  /** The API client of a zone. */
  clientFor(zone: string): VendorHttpClient;
  /** True when one endpoint serves every zone (`spec.endpoint`). */
  single: boolean;
  describeEndpoint: string;
}

export class ExoscaleCloudDriver extends KitCloudDriver {
  readonly servers: ExoscaleInstances;
  private types = new Map<string, string>();
  private readonly templates = new Map<string, Promise<Template[]>>();

  constructor(
    private readonly apis: ExoscaleApis,
    pollMs = 500,
  ) {
    super(apis.clientFor(HOME_ZONE), {
      vendor: 'exoscale',
      describeEndpoint: apis.describeEndpoint,
      credentialProbePath: '/zone',
      tokenHelp: 'create an API key (and its secret) under IAM → Keys in the Exoscale portal, with a role allowing Compute',
      metricsUnsupported: "Exoscale's API v2 has no instance metrics endpoint",
    });
    this.servers = new ExoscaleInstances(
      {
        clientFor: (zone) => apis.clientFor(zone),
        searchZones: async () => (apis.single ? [HOME_ZONE] : (await this.regions()).map((r) => r.slug)),
        checkPlacement: (zone, size) => this.catalog.checkPlacement(zone, size),
        instanceTypes: async () => {
          await this.catalog.get();
          const types = this.types;
          return {
            slugOf: (typeId) => types.get(typeId) ?? typeId,
            idOf: (slug) => [...types].find(([, s]) => s === slug)?.[0],
          };
        },
        resolveTemplate: (zone, image) => this.resolveTemplate(zone, image),
      },
      pollMs,
    );
  }

  /** Exoscale's cheapest signed read, `list-zones` (it takes no paging parameters). */
  override async testCredentials(options: CallOptions = {}): Promise<CredentialTest> {
    try {
      await this.client.call({ method: 'GET', path: '/zone', doing: 'test the API key', signal: options.signal });
      return { ok: true, message: `exoscale: the API key is accepted at ${this.apis.describeEndpoint}` };
    } catch (error) {
      if (error instanceof VendorAuthError) {
        return { ok: false, message: `${error.message}: the API key or its secret was refused; create an API key (and its secret) under IAM → Keys in the Exoscale portal, with a role allowing Compute` };
      }
      if (error instanceof VendorRejectedError) return { ok: false, message: error.message };
      throw error;
    }
  }

  power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    return this.servers.power(externalId, action, options);
  }

  /** Zones and instance types (Exoscale does not page them); types needing Exoscale's authorisation are left out. */
  protected async listCatalog(): Promise<Catalog> {
    const zones = await this.client.call({ method: 'GET', path: '/zone', doing: 'list zones' });
    const regions = WireReader.of(zones.body, 'exoscale: list zones').array('zones').map(readZone);
    const answer = await this.client.call({ method: 'GET', path: '/instance-type', doing: 'list instance types' });
    const all = WireReader.of(answer.body, 'exoscale: list instance types').array('instance-types').map(readInstanceType);
    this.types = new Map(all.map((t) => [t.id, t.size.slug]));
    return { regions, sizes: all.filter((t) => t.authorized).map((t) => t.size) };
  }

  /** A template's id: a UUID as is, else the public template of the zone whose slug is `image`. */
  async resolveTemplate(zone: string, image: string): Promise<string> {
    if (isUuid(image)) return image;
    let listed = this.templates.get(zone);
    if (!listed) {
      listed = this.apis
        .clientFor(zone)
        .call({ method: 'GET', path: '/template', query: { visibility: 'public' }, doing: `list templates in ${zone}` })
        .then((answer) => WireReader.of(answer.body, `exoscale: list templates in ${zone}`).array('templates').map(readTemplate));
      this.templates.set(zone, listed);
    }
    let templates: Template[];
    try {
      templates = await listed;
    } catch (error) {
      this.templates.delete(zone);
      throw error;
    }
    const found = templates.find((t) => t.slug === image);
    if (found) return found.id;
    throw new VendorRejectedError(`exoscale: image "${image}" is not a public template in ${zone}; images: ${[...new Set(templates.map((t) => t.slug))].join(', ')} (or a template id)`, { field: 'image' });
  }
}
