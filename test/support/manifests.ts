/**
 * @module Manifest sets for end-to-end tests, written to temporary folders as YAML files.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface StackOptions {
  /** Provider endpoint of a separate sandbox cloud; in-process when absent. */
  endpoint?: string;
  servers?: number;
  databases?: number;
  apps?: number;
  size?: string;
}

/** Writes provider.yaml, servers.yaml, databases.yaml and apps.yaml into `dir`. */
export function writeStack(dir: string, options: StackOptions = {}): { servers: string[]; databases: string[]; apps: string[] } {
  mkdirSync(dir, { recursive: true });
  const servers = Array.from({ length: options.servers ?? 2 }, (_, i) => `web-${i + 1}`);
  const databases = Array.from({ length: options.databases ?? 1 }, (_, i) => `db-${i + 1}`);
  const apps = Array.from({ length: options.apps ?? 1 }, (_, i) => `app-${i + 1}`);
  writeFileSync(
    join(dir, 'provider.yaml'),
    `apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: sandbox\nspec:\n  vendor: sandbox\n${options.endpoint ? `  endpoint: ${options.endpoint}\n` : ''}`,
  );
  writeFileSync(
    join(dir, 'servers.yaml'),
    servers
      .map(
        (name, i) =>
          `apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: ${name}\n  labels: { team: shop }\nspec:\n  provider: sandbox\n  region: ${['eu-1', 'us-1', 'ap-1'][i % 3]}\n  size: ${options.size ?? 'small'}\n  image: debian-12\n`,
      )
      .join('---\n'),
  );
  writeFileSync(
    join(dir, 'databases.yaml'),
    databases
      .map(
        (name, i) =>
          `apiVersion: cairn.dev/v1\nkind: Database\nmetadata:\n  name: ${name}\nspec:\n  type: postgresql\n  server: ${servers[i % servers.length]}\n  version: "16"\n  storageGb: 10\n`,
      )
      .join('---\n'),
  );
  writeFileSync(
    join(dir, 'apps.yaml'),
    apps
      .map(
        (name, i) =>
          `apiVersion: cairn.dev/v1\nkind: App\nmetadata:\n  name: ${name}\nspec:\n  server: ${servers[i % servers.length]}\n  source:\n    git: { url: "https://git.example.com/acme/${name}.git", ref: main }\n  command: "node server.js"\n  port: 8080\n  env: { NODE_ENV: production, API_KEY: s3cr3t-value }\n  databases: [${databases[i % databases.length] ?? ''}]\n  healthCheck: { path: /healthz }\n`,
      )
      .join('---\n'),
  );
  return { servers, databases, apps };
}
