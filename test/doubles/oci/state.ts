/**
 * @module What the OCI double holds: one tenancy in one region (eu-frankfurt-1, three ADs),
 * its shapes per AD (fixed and flexible), its images (Oracle's platform images and a custom
 * `debian-12` the tests' compartment imported), and its instances with their VNICs. An
 * instance's lifecycle moves on by time (`actionMs` per step): PROVISIONING → RUNNING,
 * STOPPING → STOPPED, STARTING → RUNNING, TERMINATING → TERMINATED (a terminated instance stays
 * listed, as at OCI). Answers are OCI's JSON (camelCase, RFC 3339 dates).
 */
import { randomBytes } from 'node:crypto';

export const REGION = 'eu-frankfurt-1';
export const AD_PREFIX = 'Uocm';
export const ADS = [1, 2, 3].map((n) => `${AD_PREFIX}:EU-FRANKFURT-1-AD-${n}`);

export function ocid(kind: string): string {
  return `ocid1.${kind}.oc1.${kind === 'tenancy' || kind === 'user' || kind === 'compartment' ? '' : 'eu-frankfurt-1'}.${randomBytes(20).toString('hex')}`;
}

/** The tenancy, user and subnet every double has, so a cairn process can be given its credentials before it starts. */
export const TENANCY = 'ocid1.tenancy.oc1..aaaaaaaacairntesttenancy';
export const USER = 'ocid1.user.oc1..aaaaaaaacairntestuser';
export const SUBNET = 'ocid1.subnet.oc1.eu-frankfurt-1.aaaaaaaacairntestsubnet';

export interface ShapeRow {
  shape: string;
  ocpus: number;
  memoryInGBs: number;
  isFlexible: boolean;
  /** ADs (by number) offering it. */
  ads: number[];
  localDisksTotalSizeInGBs?: number;
}

export const SHAPES: readonly ShapeRow[] = [
  { shape: 'VM.Standard2.1', ocpus: 1, memoryInGBs: 15, isFlexible: false, ads: [1, 2, 3] },
  { shape: 'VM.Standard2.2', ocpus: 2, memoryInGBs: 30, isFlexible: false, ads: [1, 2, 3] },
  { shape: 'VM.Standard.E4.Flex', ocpus: 1, memoryInGBs: 16, isFlexible: true, ads: [1, 2, 3] },
  { shape: 'VM.Standard.A1.Flex', ocpus: 1, memoryInGBs: 6, isFlexible: true, ads: [1, 2] },
  { shape: 'VM.DenseIO2.8', ocpus: 8, memoryInGBs: 120, isFlexible: false, ads: [1], localDisksTotalSizeInGBs: 6400 },
  { shape: 'VM.Standard.E2.1.Micro', ocpus: 1, memoryInGBs: 1, isFlexible: false, ads: [3] },
];

export interface ImageRow {
  id: string;
  displayName: string;
  operatingSystem: string;
  operatingSystemVersion: string;
  timeCreated: string;
  /** Platform images live in no compartment of the tenancy's. */
  compartmentId: string | null;
}

export interface InstanceRow {
  id: string;
  availabilityDomain: string;
  compartmentId: string;
  displayName: string;
  shape: string;
  shapeConfig: { ocpus: number; memoryInGBs: number } | undefined;
  imageId: string;
  freeformTags: Record<string, string>;
  metadata: Record<string, string>;
  /** The user data it was launched with, decoded; null without. */
  userData: string | null;
  state: string;
  /** When the current step ends, and the state it ends in. */
  until: number;
  next: string | undefined;
  timeCreated: string;
  vnicId: string;
  publicIp: string;
  subnetId: string;
}

export class OciState {
  readonly tenancy = TENANCY;
  readonly user = USER;
  readonly subnet = SUBNET;
  readonly images: ImageRow[];
  readonly instances: InstanceRow[] = [];
  /** opc-retry-token → the instance its launch made, and the body it came with. */
  readonly retryTokens = new Map<string, { instanceId: string; body: string }>();
  private addresses = 10;

  constructor(private readonly actionMs: number) {
    const platform = (displayName: string, operatingSystem: string, operatingSystemVersion: string, day: number): ImageRow => ({
      id: ocid('image'), displayName, operatingSystem, operatingSystemVersion, timeCreated: `2026-0${day}-01T00:00:00.000Z`, compartmentId: null,
    });
    this.images = [
      platform('Oracle-Linux-9.4-2026.05.01-0', 'Oracle Linux', '9', 5),
      platform('Oracle-Linux-8.10-2026.04.01-0', 'Oracle Linux', '8', 4),
      platform('Canonical-Ubuntu-24.04-2026.03.01-0', 'Canonical Ubuntu', '24.04', 3),
      platform('Canonical-Ubuntu-22.04-2026.02.01-0', 'Canonical Ubuntu', '22.04', 2),
      { ...platform('debian-12', 'Debian', '12', 1), compartmentId: this.tenancy },
    ];
  }

  /** Moves every instance whose step has ended to its next state. */
  tick(): void {
    const now = Date.now();
    for (const i of this.instances) {
      if (i.next !== undefined && now >= i.until) {
        i.state = i.next;
        i.next = undefined;
      }
    }
  }

  /** Starts a step: `state` now, `next` after actionMs. */
  step(instance: InstanceRow, state: string, next: string): void {
    instance.state = state;
    instance.next = next;
    instance.until = Date.now() + this.actionMs;
  }

  launch(row: Omit<InstanceRow, 'id' | 'state' | 'until' | 'next' | 'timeCreated' | 'vnicId' | 'publicIp'>): InstanceRow {
    const instance: InstanceRow = { ...row, id: ocid('instance'), state: 'PROVISIONING', until: 0, next: undefined, timeCreated: new Date().toISOString(), vnicId: ocid('vnic'), publicIp: `198.51.100.${this.addresses++}` };
    this.step(instance, 'PROVISIONING', 'RUNNING');
    this.instances.push(instance);
    return instance;
  }

  find(id: string): InstanceRow | undefined {
    return this.instances.find((i) => i.id === id);
  }
}

/** An instance as OCI's `Instance` model. */
export function instanceJson(i: InstanceRow): Record<string, unknown> {
  return {
    availabilityDomain: i.availabilityDomain, compartmentId: i.compartmentId, displayName: i.displayName, freeformTags: i.freeformTags, definedTags: {},
    id: i.id, imageId: i.imageId, lifecycleState: i.state, metadata: i.metadata, region: REGION, shape: i.shape,
    ...(i.shapeConfig ? { shapeConfig: { ocpus: i.shapeConfig.ocpus, memoryInGBs: i.shapeConfig.memoryInGBs } } : {}),
    sourceDetails: { sourceType: 'image', imageId: i.imageId }, timeCreated: i.timeCreated, faultDomain: 'FAULT-DOMAIN-1',
  };
}
