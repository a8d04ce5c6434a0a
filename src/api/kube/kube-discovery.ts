/**
 * @module Kubernetes API discovery for cairn's kinds: `/version`, `/api` and `/api/v1` (the core
 * group, where cairn serves only events), `/apis` and `/apis/cairn.dev[/v1]`, in the legacy
 * shapes and — when the client asks for it, as kubectl does — the aggregated
 * apidiscovery.k8s.io/v2 shape.
 */
import { Router, type Request } from 'express';
import { KINDS } from '../../model/kinds.js';
import { CATEGORIES, GROUP, GROUP_VERSION, KIND_NAMES, VERSION } from '../../kubernetes/kind-names.js';

const VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
const AGGREGATED_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

function wantsAggregated(req: Request): boolean {
  return (req.get('Accept') ?? '').split(',').some((part) => /g=apidiscovery\.k8s\.io/.test(part) && /v=v2(?!beta)/.test(part) && /as=APIGroupDiscoveryList/.test(part));
}

function resourceList(): Record<string, unknown> {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: GROUP_VERSION,
    resources: KINDS.flatMap((kind) => {
      const names = KIND_NAMES[kind];
      return [
        { name: names.plural, singularName: names.singular, namespaced: true, kind, verbs: VERBS, shortNames: names.shortNames, categories: CATEGORIES },
        { name: `${names.plural}/status`, singularName: '', namespaced: true, kind, verbs: ['get'] },
      ];
    }),
  };
}

function aggregatedGroups(): Record<string, unknown> {
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: 'apidiscovery.k8s.io/v2',
    metadata: {},
    items: [
      {
        metadata: { name: GROUP },
        versions: [
          {
            version: VERSION,
            freshness: 'Current',
            resources: KINDS.map((kind) => {
              const names = KIND_NAMES[kind];
              return {
                resource: names.plural,
                responseKind: { group: GROUP, version: VERSION, kind },
                scope: 'Namespaced',
                singularResource: names.singular,
                verbs: VERBS,
                shortNames: names.shortNames,
                categories: CATEGORIES,
                subresources: [{ subresource: 'status', responseKind: { group: GROUP, version: VERSION, kind }, verbs: ['get'] }],
              };
            }),
          },
        ],
      },
    ],
  };
}

const CORE_EVENTS = { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'v1', resources: [{ name: 'events', singularName: 'event', namespaced: true, kind: 'Event', verbs: ['get', 'list'], shortNames: ['ev'] }] };

export function kubeDiscoveryRoutes(version: string): Router {
  const router = Router();
  router.get('/version', (_req, res) => {
    res.json({ major: '1', minor: '32', gitVersion: `v1.32.0+cairn.${version}`, gitCommit: '', gitTreeState: 'clean', buildDate: '', goVersion: '', compiler: 'cairn', platform: `${process.platform}/${process.arch}` });
  });
  router.get('/api', (req, res) => {
    if (wantsAggregated(req)) {
      res.type(AGGREGATED_TYPE).send(JSON.stringify({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items: [{ metadata: {}, versions: [{ version: 'v1', freshness: 'Current', resources: [{ resource: 'events', responseKind: { group: '', version: 'v1', kind: 'Event' }, scope: 'Namespaced', singularResource: 'event', verbs: ['get', 'list'], shortNames: ['ev'] }] }] }] }));
      return;
    }
    res.json({ kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: req.get('Host') ?? '' }] });
  });
  router.get('/api/v1', (_req, res) => {
    res.json(CORE_EVENTS);
  });
  router.get('/apis', (req, res) => {
    if (wantsAggregated(req)) {
      res.type(AGGREGATED_TYPE).send(JSON.stringify(aggregatedGroups()));
      return;
    }
    const version = { groupVersion: GROUP_VERSION, version: VERSION };
    res.json({ kind: 'APIGroupList', apiVersion: 'v1', groups: [{ name: GROUP, versions: [version], preferredVersion: version }] });
  });
  router.get(`/apis/${GROUP}`, (_req, res) => {
    const v = { groupVersion: GROUP_VERSION, version: VERSION };
    res.json({ kind: 'APIGroup', apiVersion: 'v1', name: GROUP, versions: [v], preferredVersion: v });
  });
  router.get(`/apis/${GROUP}/${VERSION}`, (_req, res) => {
    res.json(resourceList());
  });
  return router;
}
