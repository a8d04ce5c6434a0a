/**
 * @module What Atlas offers a project: its cloud providers' regions and, per region, the
 * instance sizes of dedicated clusters (`listCloudProviderRegions`, read page by page), kept ten
 * minutes; a region or size Atlas does not offer is refused here, naming the ones it does,
 * before anything is created.
 */
import { VendorRejectedError } from '../errors.js';
import { readAllPages } from '../kit/pagination.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { readPage } from './cluster-wire.js';
import { ATLAS_VERSION_2023_01_01, type AtlasProject } from './project.js';

const TTL_MS = 10 * 60_000;
/** Items per page asked of Atlas (its default is 100; the double pages smaller). */
const PAGE_SIZE = 100;

/** Region slug (`AWS:EU_CENTRAL_1`) → the instance sizes Atlas offers there. */
export type Offer = Map<string, Set<string>>;

export class AtlasCatalog {
  private cached: { at: number; offer: Promise<Offer> } | undefined;

  constructor(
    private readonly client: VendorHttpClient,
    private readonly project: AtlasProject,
  ) {}

  /** Refuses (naming the valid ones) a region or size Atlas does not offer; a miss reads the offer again once, in case it grew. */
  async check(region: string, size: string, doing: string, signal?: AbortSignal): Promise<void> {
    let problem = offerProblem(await this.offer(doing, signal, false), region, size);
    if (problem) problem = offerProblem(await this.offer(doing, signal, true), region, size);
    if (problem) throw problem;
  }

  offer(doing: string, signal: AbortSignal | undefined, fresh: boolean): Promise<Offer> {
    if (!fresh && this.cached && Date.now() - this.cached.at < TTL_MS) return this.cached.offer;
    const offer = this.read(doing, signal);
    const entry = { at: Date.now(), offer };
    this.cached = entry;
    offer.catch(() => {
      if (this.cached === entry) this.cached = undefined;
    });
    return offer;
  }

  private async read(doing: string, signal: AbortSignal | undefined): Promise<Offer> {
    const what = `${doing}: read the regions and instance sizes Atlas offers`;
    const providers = await readAllPages(async (at) => {
      const pageNum = at === undefined ? 1 : Number(at);
      const answer = await this.client.call({
        method: 'GET', path: `${this.project.path}/clusters/provider/regions`, query: { pageNum, itemsPerPage: PAGE_SIZE }, headers: ATLAS_VERSION_2023_01_01, doing: what, signal,
      });
      return readPage(WireReader.of(answer.body, `atlas: ${what}`), pageNum);
    }, `atlas: ${what}`);
    const offer: Offer = new Map();
    for (const provider of providers) {
      const name = provider.string('provider');
      for (const size of provider.raw('instanceSizes') === undefined ? [] : provider.array('instanceSizes')) {
        for (const region of size.raw('availableRegions') === undefined ? [] : size.array('availableRegions')) {
          const slug = `${name}:${region.string('name')}`;
          const sizes = offer.get(slug) ?? new Set<string>();
          sizes.add(size.string('name'));
          offer.set(slug, sizes);
        }
      }
    }
    return offer;
  }
}

function offerProblem(offer: Offer, region: string, size: string): VendorRejectedError | undefined {
  const sizes = offer.get(region);
  if (!sizes) {
    return new VendorRejectedError(`atlas: region "${region}" is not offered (a region is PROVIDER:REGION_NAME); regions: ${[...offer.keys()].sort().join(', ')}`, { field: 'region' });
  }
  if (!sizes.has(size)) return new VendorRejectedError(`atlas: instance size "${size}" is not offered in ${region}; sizes there: ${[...sizes].sort(bySize).join(', ')}`, { field: 'size' });
  return undefined;
}

/** M10 before M20 before M100. */
function bySize(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
