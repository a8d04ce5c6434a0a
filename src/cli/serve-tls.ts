/**
 * @module The TLS identity of `cairn serve --tls`: a certificate and key given with --tls-cert
 * and --tls-key, or a self-signed one for 127.0.0.1, ::1, localhost and the listen host,
 * generated on first use into `<data dir>/tls/` (key mode 0600) and reused after. kubectl only
 * sends a bearer token over HTTPS, so this is what `kubectl --token` needs.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { CliError } from './cli-error.js';

export interface TlsIdentity {
  cert: string;
  key: string;
  /** Where the certificate is, for `kubectl --certificate-authority`. */
  certPath: string;
  generated: boolean;
}

const CERT_DAYS = 825;

function readOrFail(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read the TLS ${what} ${path}: ${(error as Error).message}`);
  }
}

/** The certificate and key to serve HTTPS with. */
export async function tlsIdentity(dataDir: string, host: string, given: { cert?: string | undefined; key?: string | undefined }): Promise<TlsIdentity> {
  if ((given.cert === undefined) !== (given.key === undefined)) throw new CliError('--tls-cert and --tls-key go together: give both, or neither for a self-signed certificate');
  if (given.cert !== undefined && given.key !== undefined) {
    return { cert: readOrFail(given.cert, 'certificate'), key: readOrFail(given.key, 'key'), certPath: given.cert, generated: false };
  }
  const dir = join(dataDir, 'tls');
  const certPath = join(dir, 'server.crt');
  const keyPath = join(dir, 'server.key');
  if (existsSync(certPath) && existsSync(keyPath)) {
    return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8'), certPath, generated: false };
  }
  const names = new Set(['localhost', '127.0.0.1', '::1', host]);
  const altNames = [...names].filter((n) => n !== '0.0.0.0' && n !== '::').map((n) => (isIP(n) ? { type: 7 as const, ip: n } : { type: 2 as const, value: n }));
  const notAfter = new Date(Date.now() + CERT_DAYS * 24 * 3600 * 1000);
  const pems = await generate([{ name: 'commonName', value: 'cairn' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate: notAfter,
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(keyPath, pems.private, { mode: 0o600 });
  writeFileSync(certPath, pems.cert, { mode: 0o644 });
  return { cert: pems.cert, key: pems.private, certPath, generated: true };
}
