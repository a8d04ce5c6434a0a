/**
 * @module Alert metrics on cairn's Prometheus registry: `cairn_alerts_firing{tenant, rule}` (read
 * from the store at each scrape, so it is right after a restart too),
 * `cairn_alert_transitions_total{event}` and `cairn_alert_deliveries_total{channel, outcome}`
 * (channel email|slack|discord|json; outcome delivered|retry|failed).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { registeredOnce } from '../api/metrics.js';
import type { Store } from '../store/store.js';
import type { DeliveryOutcome } from './alert-deliveries.js';

export interface AlertMetrics {
  transition(event: 'firing' | 'resolved'): void;
  delivery(channel: string, outcome: DeliveryOutcome): void;
}

export function createAlertMetrics(registry: Registry, store: Pick<Store, 'alerts'>): AlertMetrics {
  registeredOnce(registry, 'cairn_alerts_firing', () => new Gauge({
    name: 'cairn_alerts_firing',
    help: 'Alerts firing now, by tenant and rule (namespace/name)',
    labelNames: ['tenant', 'rule'],
    registers: [registry],
    collect() {
      this.reset();
      for (const row of store.alerts.firingByRule()) this.set({ tenant: row.tenant, rule: `${row.namespace}/${row.ruleName}` }, row.count);
    },
  }));
  const transitions = registeredOnce(registry, 'cairn_alert_transitions_total', () => new Counter({
    name: 'cairn_alert_transitions_total', help: 'Alerts fired and resolved by this process', labelNames: ['event'], registers: [registry],
  }));
  const deliveries = registeredOnce(registry, 'cairn_alert_deliveries_total', () => new Counter({
    name: 'cairn_alert_deliveries_total', help: 'Notification attempts by channel and outcome (delivered, retry, failed)', labelNames: ['channel', 'outcome'], registers: [registry],
  }));
  return {
    transition: (event) => transitions.inc({ event }),
    delivery: (channel, outcome) => deliveries.inc({ channel, outcome }),
  };
}
