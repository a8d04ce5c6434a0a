/**
 * @module A stateful double of Leaseweb's Public Cloud API v1 on loopback, for the leaseweb
 * driver's tests: instances (a `reference` of free text; CREATING → RUNNING after `actionMs`;
 * start, stop and reboot through STARTING and STOPPING, each refused unless the instance is in
 * the state Leaseweb requires; a type change in place only to a larger type of the region, the
 * ones `getUpdateInstanceTypeList` lists; terminate through DESTROYING to DESTROYED, which stays
 * listed), regions, instance types per region with prices, limit/offset paging with
 * `_metadata.totalCount`, Leaseweb's error shape `{ correlationId, errorCode, errorMessage,
 * errorDetails }`, the API key in `X-LSW-Auth`, and its limit as 429s. User data is kept as sent
 * (Leaseweb takes it as plain text), so a test can check it arrived intact.
 *
 * Every request and answer is checked against Leaseweb's document
 * (test/vendor-apis/leaseweb/publiccloud.openapi.yaml).
 */
import { randomInt, randomUUID } from 'node:crypto';
import { startVendorDouble, vendorDocument, type CommonDoubleOptions, type DoubleAnswer, type DoubleRequest, type VendorDouble } from '../support/vendor-double.js';

const DOCUMENT = vendorDocument('leaseweb', 'publiccloud.openapi.yaml');

/** Regions: name, location. */
const REGIONS: Array<[string, string]> = [
  ['eu-west-3', 'Amsterdam'], ['eu-central-1', 'Frankfurt'], ['eu-west-2', 'London'], ['us-east-1', 'Washington'],
  ['us-west-1', 'San Francisco'], ['ca-central-1', 'Montreal'], ['ap-southeast-1', 'Singapore'], ['ap-northeast-1', 'Tokyo'],
];

/** Types: name, vCPUs, memory GiB, monthly EUR, storage types, regions (all when undefined). */
const TYPES: Array<[string, number, number, string, string[], string[] | undefined]> = [
  ['lsw.m3.large', 2, 7, '29.4400', ['CENTRAL'], undefined],
  ['lsw.m3.xlarge', 4, 15, '59.3300', ['CENTRAL'], undefined],
  ['lsw.c3.large', 2, 3, '26.0200', ['CENTRAL'], undefined],
  ['lsw.r3.large', 2, 15.25, '36.4900', ['LOCAL', 'CENTRAL'], ['eu-west-3', 'us-east-1']],
  ['lsw.m5a.4xlarge', 16, 64, '240.0000', ['LOCAL'], ['eu-west-3']],
];

/** Operating system images the double knows. */
const IMAGES: Record<string, string> = {
  DEBIAN_12_64BIT: 'Debian 12 (x86_64)', UBUNTU_24_04_64BIT: 'Ubuntu 24.04 LTS (x86_64)', UBUNTU_22_04_64BIT: 'Ubuntu 22.04 LTS (x86_64)',
};

export interface LeasewebDoubleOptions extends CommonDoubleOptions {
  /** The most items a page holds whatever `limit` asks; small to make lists page. */
  maxPerPage?: number;
}

type Json = Record<string, unknown>;
type State = 'CREATING' | 'STARTING' | 'RUNNING' | 'STOPPING' | 'STOPPED' | 'DESTROYING' | 'DESTROYED';

interface InstanceState {
  id: string;
  reference: string | null;
  type: string;
  region: string;
  imageId: string;
  state: State;
  /** What the instance becomes when its work ends, at `settlesAt`. */
  then: State;
  settlesAt: number;
  rootDiskSize: number;
  rootDiskStorageType: string;
  userData: string | null;
  contract: { type: string; term: number; billingFrequency: number };
  ip: string;
}

export interface LeasewebDouble extends VendorDouble {
  /** What the double holds now (tests look at "the cloud" directly), DESTROYED ones too. */
  instances(): Array<Omit<InstanceState, 'then' | 'settlesAt' | 'ip'>>;
}

function error(status: number, _code: string, message: string, details?: Record<string, string[]>): Json {
  return { correlationId: randomUUID(), errorCode: String(status), errorMessage: message, ...(details ? { errorDetails: details } : {}) };
}

/** One page of `items` under `field`, with Leaseweb's `_metadata`. */
function paged<T>(field: string, items: T[], query: DoubleRequest['query'], render: (item: T) => unknown, maxPerPage: number): DoubleAnswer {
  const limit = Math.min(maxPerPage, Number(query['limit'] ?? 50));
  const offset = Number(query['offset'] ?? 0);
  return { status: 200, body: { _metadata: { totalCount: items.length, limit, offset }, [field]: items.slice(offset, offset + limit).map(render) } };
}

export async function startLeasewebDouble(options: LeasewebDoubleOptions = {}): Promise<LeasewebDouble> {
  const token = options.token ?? 'leaseweb-test-token';
  const actionMs = options.actionMs ?? 150;
  const maxPerPage = options.maxPerPage ?? 500;
  const instances = new Map<string, InstanceState>();

  function advance(): void {
    const now = Date.now();
    for (const i of instances.values()) if (i.state !== i.then && now >= i.settlesAt) i.state = i.then;
  }

  function busy(i: InstanceState, state: State, then: State): void {
    i.state = state;
    i.then = then;
    i.settlesAt = Date.now() + actionMs;
  }

  const typesIn = (region: string): Array<(typeof TYPES)[number]> => TYPES.filter(([, , , , , regions]) => regions === undefined || regions.includes(region));

  const double = await startVendorDouble({
    document: DOCUMENT,
    basePath: '/publicCloud/v1',
    error,
    rateLimit: options.rateLimit,
    latencyMs: options.latencyMs,
    slowAnswers: options.slowAnswers,
    authenticate(headers) {
      return headers['x-lsw-auth'] === token ? null : { status: 401, body: error(401, 'unauthorized', 'You are not authorized to view this resource.') };
    },
    handlers(example) {
      const listTemplate = (example('getInstanceList')['instances'] as Json[])[0]!;
      const detailTemplate = example('getInstance');
      const typeTemplate = (example('getInstanceTypeList')['instanceTypes'] as Json[])[0]!;
      const bad = (message: string, field?: string): DoubleAnswer => ({ status: 400, body: error(400, 'bad_request', message, field === undefined ? undefined : { [field]: [message] }) });
      const typeOf = (name: string): (typeof TYPES)[number] | undefined => TYPES.find(([t]) => t === name);

      function renderType([name, cpu, memory, monthly, storageTypes]: (typeof TYPES)[number]): Json {
        return {
          ...typeTemplate, name, storageTypes,
          resources: { cpu: { value: cpu, unit: 'vCPU' }, memory: { value: memory, unit: 'GiB' }, publicNetworkSpeed: { value: 1, unit: 'Gbps' }, privateNetworkSpeed: { value: 100, unit: 'Mbps' } },
          prices: {
            currency: 'EUR', currencySymbol: '€', compute: { hourlyPrice: (Number(monthly) / 730).toFixed(4), monthlyPrice: monthly },
            storage: { local: { hourlyPrice: '0.00004', monthlyPrice: '0.03000' }, central: { hourlyPrice: '0.00011', monthlyPrice: '0.08000' } },
          },
        };
      }

      function render(i: InstanceState, template: Json, detailed: boolean): Json {
        advance();
        const [, cpu, memory] = typeOf(i.type) ?? TYPES[0]!;
        const ddos = detailed ? { ddos: { detectionProfile: 'STANDARD_DEFAULT', protectionType: 'STANDARD' } } : {};
        return {
          ...template, id: i.id, reference: i.reference, type: i.type, region: i.region, state: i.state, marketAppId: null, productType: 'INSTANCE', autoScalingGroup: null,
          image: { id: i.imageId, name: IMAGES[i.imageId] ?? 'Custom image', family: 'linux', flavour: i.imageId.startsWith('UBUNTU') ? 'ubuntu' : 'debian', custom: !(i.imageId in IMAGES) },
          resources: { cpu: { value: cpu, unit: 'vCPU' }, memory: { value: memory, unit: 'GiB' }, publicNetworkSpeed: { value: 1, unit: 'Gbps' }, privateNetworkSpeed: { value: 100, unit: 'Mbps' } },
          hasPublicIpV4: true, hasPrivateNetwork: false, hasUserData: i.userData !== null, rootDiskSize: i.rootDiskSize, rootDiskStorageType: i.rootDiskStorageType,
          startedAt: null,
          contract: { billingFrequency: i.contract.billingFrequency, term: i.contract.term, type: i.contract.type, endsAt: null, renewalsAt: '2026-12-01T00:00:00+00:00', createdAt: '2026-11-01T00:00:00+00:00', state: 'ACTIVE' },
          ips: [
            { ip: i.ip, prefixLength: '32', version: 4, nullRouted: false, reverseLookup: null, mainIp: true, networkType: 'PUBLIC', ...ddos },
            { ip: `10.32.${randomInt(0, 255)}.12`, prefixLength: '27', version: 4, nullRouted: false, reverseLookup: null, mainIp: false, networkType: 'INTERNAL', ...ddos },
          ],
          ...(detailed ? { iso: null, privateNetwork: null } : {}),
        };
      }

      function instance(request: DoubleRequest): InstanceState | DoubleAnswer {
        advance();
        return instances.get(request.params['instanceId'] ?? '') ?? { status: 404, body: error(404, 'not_found', 'Resource not found') };
      }

      function power(request: DoubleRequest, from: State, state: State, then: State): DoubleAnswer {
        const i = instance(request);
        if (!('id' in i)) return i;
        if (i.state !== from) return bad(`The instance must be ${from.toLowerCase()} before the execution; it is ${i.state}`);
        busy(i, state, then);
        return { status: 202 };
      }

      /** The larger types of the instance's region: Leaseweb changes a type in place only upwards. */
      function upgrades(i: InstanceState): Array<(typeof TYPES)[number]> {
        const [, cpu, memory] = typeOf(i.type)!;
        return typesIn(i.region).filter(([name, c, m]) => name !== i.type && c >= cpu && m >= memory);
      }

      return {
        getRegionList: (r) => paged('regions', REGIONS, r.query, ([name, location]) => ({ name, location }), maxPerPage),
        getInstanceTypeList: (r) => paged('instanceTypes', typesIn(String(r.query['region'])), r.query, renderType, maxPerPage),
        getInstanceList(r) {
          advance();
          const reference = r.query['reference'];
          const all = [...instances.values()].filter((i) => reference === undefined || i.reference === reference);
          return paged('instances', all, r.query, (i) => render(i, listTemplate, false), maxPerPage);
        },
        launchInstance(r) {
          const body = r.body as { region: string; type: string; imageId: string; reference?: string; contractType: string; contractTerm: number; billingFrequency: number; rootDiskSize?: number; rootDiskStorageType: string; userData?: string; sshKey?: string };
          const type = typesIn(body.region).find(([name]) => name === body.type);
          if (!type) return bad(`Instance type ${body.type} is not available in ${body.region}`, 'type');
          if (!(body.imageId in IMAGES) && !/^[0-9a-f-]{36}$/.test(body.imageId)) return bad(`Image ${body.imageId} does not exist`, 'imageId');
          if (body.contractType === 'HOURLY' && body.contractTerm !== 0) return bad('contractTerm must be 0 for an HOURLY contract', 'contractTerm');
          if (!type[4].includes(body.rootDiskStorageType)) return bad(`Storage type ${body.rootDiskStorageType} is not available for ${body.type}`, 'rootDiskStorageType');
          if (body.userData !== undefined && body.sshKey !== undefined) return bad('userData cannot be used in combination with sshKey', 'userData');
          const created: InstanceState = {
            id: randomUUID(), reference: body.reference ?? null, type: body.type, region: body.region, imageId: body.imageId, state: 'CREATING', then: 'RUNNING',
            settlesAt: Date.now() + actionMs, rootDiskSize: body.rootDiskSize ?? 5, rootDiskStorageType: body.rootDiskStorageType, userData: body.userData ?? null,
            contract: { type: body.contractType, term: body.contractTerm, billingFrequency: body.billingFrequency }, ip: `89.149.${randomInt(0, 255)}.${randomInt(1, 254)}`,
          };
          instances.set(created.id, created);
          return { status: 201, body: render(created, listTemplate, false) };
        },
        getInstance(r) {
          const i = instance(r);
          return 'id' in i ? { status: 200, body: render(i, detailTemplate, true) } : i;
        },
        getUpdateInstanceTypeList(r) {
          const i = instance(r);
          return 'id' in i ? paged('instanceTypes', upgrades(i), r.query, renderType, maxPerPage) : i;
        },
        updateInstance(r) {
          const i = instance(r);
          if (!('id' in i)) return i;
          const body = r.body as { type?: string; reference?: string };
          if (body.type !== undefined && body.type !== i.type) {
            if (i.state !== 'RUNNING' && i.state !== 'STOPPED') return bad(`The instance is ${i.state}`);
            if (!upgrades(i).some(([name]) => name === body.type)) return bad(`Instance type ${body.type} is not eligible for this instance`, 'type');
            i.type = body.type;
            const back = i.state;
            busy(i, back === 'RUNNING' ? 'STARTING' : 'STOPPING', back);
          }
          if (body.reference !== undefined) i.reference = body.reference;
          return { status: 200, body: render(i, detailTemplate, true) };
        },
        terminateInstance(r) {
          const i = instance(r);
          if (!('id' in i)) return i;
          if (i.state === 'CREATING' || i.state === 'DESTROYING' || i.state === 'DESTROYED') return bad(`The instance cannot be terminated while ${i.state}`);
          busy(i, 'DESTROYING', 'DESTROYED');
          return { status: 200 };
        },
        startInstance: (r) => power(r, 'STOPPED', 'STARTING', 'RUNNING'),
        stopInstance: (r) => power(r, 'RUNNING', 'STOPPING', 'STOPPED'),
        rebootInstance: (r) => power(r, 'RUNNING', 'STARTING', 'RUNNING'),
      };
    },
  });
  return {
    ...double,
    instances: () => {
      advance();
      return [...instances.values()].map(({ then: _then, settlesAt: _at, ip: _ip, ...held }) => held);
    },
  };
}
