/**
 * @module Where a database or app is placed: its Server (Ready, when converging), that server's
 * Provider, and the runtime driver that manages things on it.
 */
import type { Placement, RuntimeDriver } from '../drivers/contract.js';
import type { StoredResource } from '../model/resource.js';
import type { ReconcileContext } from './context.js';
import { findDependency, requireReady } from './dependencies.js';

export interface PlacedOn {
  server: StoredResource<'Server'>;
  provider: StoredResource<'Provider'>;
  runtime: RuntimeDriver;
  placement: Placement;
  vendor: string;
}

export async function placementOf(
  ctx: ReconcileContext,
  owner: StoredResource<'Database'> | StoredResource<'App'>,
  serverName: string,
  purpose: 'converge' | 'delete',
): Promise<PlacedOn> {
  const server = purpose === 'converge' ? requireReady(ctx, owner, 'Server', serverName) : findDependency(ctx, owner, 'Server', serverName);
  const provider = findDependency(ctx, server, 'Provider', server.spec.provider);
  const runtime = await ctx.drivers.runtimeFor(provider);
  const address = server.status.endpoints?.ipv4;
  return {
    server,
    provider,
    runtime,
    placement: { serverExternalId: server.status.externalId ?? '', serverAddress: typeof address === 'string' ? address : null },
    vendor: `${provider.spec.vendor} (Server/${server.name})`,
  };
}
