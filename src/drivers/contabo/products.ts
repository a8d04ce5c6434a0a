/**
 * @module Contabo's VPS products as cairn's size table. Contabo's API has no list of products:
 * `productId` is free text at create, so the sizes are cairn's table, not read from the API.
 * Product ids, names and disks are from the table in the description of `createInstance` in
 * Contabo's document (test/vendor-apis/contabo/openapi.yaml). vCPUs and memory per tier (VPS 10:
 * 4 vCPU, 8 GB; 20: 6, 12 GB; 30: 8, 24 GB; 40: 12, 48 GB; 50: 16, 64 GB; 60: 18, 96 GB) and the
 * monthly prices (EUR, monthly term, region EU, before any setup fee or region surcharge) are
 * Contabo's published Cloud VPS figures at contabo.com/en/vps/, which the API does not report:
 * approximate, and to be checked there. The "Storage" variants are left out: the document's
 * introduction says Storage VPS are not supported through the API. Every product is offered in
 * every region Contabo lists.
 */

export interface ContaboProduct {
  id: string;
  name: string;
  vcpus: number;
  memoryMb: number;
  diskGb: number;
  priceMonthly: number;
}

/** vCPUs, memory (GB) and price (EUR a month) of each Cloud VPS tier. */
const TIERS: Record<string, [number, number, number]> = {
  'VPS 10': [4, 8, 4.5], 'VPS 20': [6, 12, 7], 'VPS 30': [8, 24, 14], 'VPS 40': [12, 48, 25], 'VPS 50': [16, 64, 37], 'VPS 60': [18, 96, 49],
};

/** productId, tier, disk type, disk GB (the document's table). */
const TABLE: Array<[string, string, 'NVMe' | 'SSD', number]> = [
  ['V91', 'VPS 10', 'NVMe', 75], ['V92', 'VPS 10', 'SSD', 150],
  ['V94', 'VPS 20', 'NVMe', 100], ['V95', 'VPS 20', 'SSD', 200],
  ['V97', 'VPS 30', 'NVMe', 200], ['V98', 'VPS 30', 'SSD', 400],
  ['V100', 'VPS 40', 'NVMe', 250], ['V101', 'VPS 40', 'SSD', 500],
  ['V103', 'VPS 50', 'NVMe', 300], ['V104', 'VPS 50', 'SSD', 600],
  ['V106', 'VPS 60', 'NVMe', 350], ['V107', 'VPS 60', 'SSD', 700],
];

export const CONTABO_PRODUCTS: readonly ContaboProduct[] = TABLE.map(([id, tier, disk, diskGb]) => {
  const [vcpus, memoryGb, priceMonthly] = TIERS[tier] ?? [0, 0, 0];
  return { id, name: `${tier} ${disk}`, vcpus, memoryMb: memoryGb * 1024, diskGb, priceMonthly };
});
