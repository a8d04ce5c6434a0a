/**
 * @module Crash safety at IONOS (its double), by the crash test every vendor runs
 * (test/support/vendor-crash.ts). IONOS takes no client token and keeps labels as separate
 * resources, so only the key in the server's name stands between a lost answer and a second
 * server; this proves it holds, and that cairn's data centers stay one per location.
 */
import { readServerName } from '../../src/drivers/ionos/server-name.js';
import { slugOf } from '../../src/drivers/ionos/shapes.js';
import { startIonosDouble } from '../doubles/ionos.js';
import { describeVendorCrashTest } from '../support/vendor-crash.js';

describeVendorCrashTest({
  vendor: 'ionos',
  title: 'IONOS',
  tokenEnv: 'IONOS_TOKEN',
  token: 'ionos-crash-token',
  regions: ['de/fra', 'de/txl', 'gb/lhr'],
  image: 'debian-12',
  sizes: ['e-1c-2gb', 'e-2c-4gb'],
  async start() {
    const double = await startIonosDouble({ token: 'ionos-crash-token', actionMs: 300, latencyMs: 20, slowAnswers: { operationIds: ['datacentersServersPost'], ms: 400 } });
    return {
      ...double,
      held: () => {
        const perLocation = new Map<string, number>();
        for (const dc of double.datacenters()) perLocation.set(dc.location, (perLocation.get(dc.location) ?? 0) + 1);
        const twice = [...perLocation].filter(([, n]) => n > 1).map(([location]) => location);
        if (twice.length > 0) throw new Error(`more than one cairn data center in ${twice.join(', ')}`);
        return double.servers().map((s) => {
          const { name, key } = readServerName(s.name);
          return { name, key, size: slugOf(s.cores, s.ram), running: s.vmState === 'RUNNING' && !s.busy };
        });
      },
    };
  },
});
