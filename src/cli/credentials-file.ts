/**
 * @module The tokens `cairn login` stored, per server: `$XDG_CONFIG_HOME/cairn/credentials.json`
 * (default `~/.config/cairn/credentials.json`), written with mode 0600 (and its directory
 * 0700) through a temporary file renamed into place, so a reader never sees half a file.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface StoredCredentials {
  access_token: string;
  refresh_token: string;
  /** When the access token expires (ISO 8601). */
  expires_at: string;
}

interface CredentialsDocument {
  servers: Record<string, StoredCredentials>;
}

export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.trim() !== '' ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'cairn', 'credentials.json');
}

/** The key of a server in the file: its origin (`https://cairn.example.com`). */
export function serverKey(server: string): string {
  return new URL(server).origin;
}

function readDocument(path: string): CredentialsDocument {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<CredentialsDocument>;
    return { servers: typeof parsed.servers === 'object' && parsed.servers !== null ? parsed.servers : {} };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { servers: {} };
    throw new Error(`cannot read ${path}: ${(error as Error).message}; remove it and run cairn login again`, { cause: error });
  }
}

export function readCredentials(server: string, env: NodeJS.ProcessEnv = process.env): StoredCredentials | undefined {
  return readDocument(credentialsPath(env)).servers[serverKey(server)];
}

export function saveCredentials(server: string, credentials: StoredCredentials, env: NodeJS.ProcessEnv = process.env): string {
  const path = credentialsPath(env);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const document = readDocument(path);
  document.servers[serverKey(server)] = credentials;
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
  return path;
}
