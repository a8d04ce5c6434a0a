/**
 * @module Asks a sandbox cloud through its own API what exists, to check that cairn made exactly
 * one vendor resource per manifest.
 */

export interface Inventory {
  servers: Array<{ id: string; name: string; client_token: string; region: string; size: string; status: string }>;
  databases: Array<{ id: string; name: string; client_token: string }>;
  apps: Array<{ id: string; name: string; client_token: string }>;
}

async function list<T>(url: string, path: string, key: string, token: string): Promise<T[]> {
  const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`GET ${path}: ${response.status}`);
  return ((await response.json()) as Record<string, T[]>)[key] ?? [];
}

/** What the cloud at `url` holds; `token` for a sandbox started with `--token`. */
export async function inventory(url: string, token = 'inventory'): Promise<Inventory> {
  return {
    servers: await list(url, '/v1/servers', 'servers', token),
    databases: await list(url, '/v1/databases', 'databases', token),
    apps: await list(url, '/v1/apps', 'apps', token),
  };
}

/** How many vendor resources carry each name. */
export function countByName(items: ReadonlyArray<{ name: string }>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item.name] = (counts[item.name] ?? 0) + 1;
  return counts;
}
