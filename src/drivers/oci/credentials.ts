/**
 * @module OCI's API signing credentials as OCI issues them (the same fields as an `~/.oci/config`
 * profile): the tenancy's and the user's OCIDs, the API key's fingerprint and its PEM private key
 * (and its passphrase, if it has one), the region the Provider works in, the compartment cairn
 * creates in (the tenancy's root compartment when absent) and the subnet its instances' VNICs
 * join. Read and checked before any request: a missing field, an OCID of the wrong kind, a key
 * that is not a PEM private key, or a fingerprint that is not the key's are each refused naming
 * the field.
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { CredentialField, DriverConfig } from '../contract.js';
import { VendorAuthError } from '../errors.js';

export interface OciCredentials {
  tenancy: string;
  user: string;
  fingerprint: string;
  privateKey: string;
  passphrase: string | null;
  region: string;
  compartment: string;
  subnet: string;
}

export const OCI_CREDENTIAL_FIELDS: readonly CredentialField[] = [
  { name: 'tenancy', description: 'The tenancy OCID (ocid1.tenancy.oc1..…): Console → Profile → Tenancy.', required: true },
  { name: 'user', description: 'The OCID of the user the API key belongs to (ocid1.user.oc1..…).', required: true },
  { name: 'fingerprint', description: "The API key's fingerprint as the Console shows it (aa:bb:…, 16 pairs): Profile → API keys.", required: true },
  { name: 'private_key', description: "The API key's private key, PEM text (-----BEGIN PRIVATE KEY-----…).", required: true },
  { name: 'pass_phrase', description: 'The private key\'s passphrase, if it has one.', required: false },
  { name: 'region', description: 'The region identifier the Provider works in, e.g. eu-frankfurt-1 (cairn regions are its availability domains).', required: true },
  { name: 'compartment', description: 'The OCID of the compartment cairn creates instances in; default the tenancy (root compartment).', required: false },
  { name: 'subnet', description: "The OCID of the subnet (in that region) instances' primary VNIC joins, with a public IP assigned.", required: true },
];

const OCID = (kind: string): RegExp => new RegExp(`^ocid1\\.${kind}\\.[a-z0-9-]+\\.[a-z0-9-]*\\.[a-z0-9._-]+$`);

/** The credentials of `config`, checked; throws a VendorAuthError naming the field otherwise. */
export function readOciCredentials(config: DriverConfig): OciCredentials {
  const given = config.credentials ?? {};
  const where = `Provider/${config.providerName}: oci credentials`;
  const field = (name: string): string => {
    const value = given[name]?.trim();
    if (value === undefined || value === '') throw new VendorAuthError(`${where}: "${name}" is missing (${OCI_CREDENTIAL_FIELDS.find((f) => f.name === name)?.description ?? ''})`, { field: name });
    return value;
  };
  const ocid = (name: string, kind: string, value: string): string => {
    if (!OCID(kind).test(value)) throw new VendorAuthError(`${where}: "${name}" must be an OCID of a ${kind} (ocid1.${kind}.oc1..…), got "${value.slice(0, 60)}"`, { field: name });
    return value;
  };
  const tenancy = ocid('tenancy', 'tenancy', field('tenancy'));
  const user = ocid('user', 'user', field('user'));
  const fingerprint = field('fingerprint').toLowerCase();
  if (!/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/.test(fingerprint)) throw new VendorAuthError(`${where}: "fingerprint" must be 16 hex pairs separated by colons (aa:bb:…), as the Console shows it`, { field: 'fingerprint' });
  const privateKey = field('private_key');
  const passphrase = given['pass_phrase'] === undefined || given['pass_phrase'] === '' ? null : given['pass_phrase'];
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: privateKey, format: 'pem', ...(passphrase === null ? {} : { passphrase }) });
  } catch (error) {
    throw new VendorAuthError(`${where}: "private_key" is not a PEM private key${passphrase === null ? '' : ' this passphrase opens'}: ${(error as Error).message}`, { field: 'private_key' });
  }
  if (key.asymmetricKeyType !== 'rsa') throw new VendorAuthError(`${where}: "private_key" must be an RSA key (OCI signs with rsa-sha256), got ${key.asymmetricKeyType ?? 'an unknown kind'}`, { field: 'private_key' });
  const actual = keyFingerprint(key);
  if (actual !== fingerprint) throw new VendorAuthError(`${where}: "fingerprint" ${fingerprint} is not this private key's (${actual}); OCI would refuse every request`, { field: 'fingerprint' });
  const region = field('region');
  if (!/^[a-z]+-[a-z]+-\d+$/.test(region)) throw new VendorAuthError(`${where}: "region" must be an OCI region identifier such as eu-frankfurt-1, got "${region}"`, { field: 'region' });
  const compartment = given['compartment'] === undefined || given['compartment'] === '' ? tenancy : ocid('compartment', given['compartment'].startsWith('ocid1.tenancy.') ? 'tenancy' : 'compartment', given['compartment']);
  const subnet = ocid('subnet', 'subnet', field('subnet'));
  return { tenancy, user, fingerprint, privateKey, passphrase, region, compartment, subnet };
}

/** OCI's API key fingerprint: MD5 of the public key's DER (SubjectPublicKeyInfo), as colon-separated hex. */
export function keyFingerprint(key: KeyObject): string {
  const der = createPublicKey(key).export({ type: 'spki', format: 'der' });
  return createHash('md5').update(der).digest('hex').match(/../g)!.join(':');
}
