/**
 * @module How controller mode reaches a Kubernetes API server: the kubeconfig (a file given
 * with --kubeconfig, else $KUBECONFIG / ~/.kube/config, else the in-cluster service account)
 * and the API clients built from it.
 */
import { CoordinationV1Api, CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';

export interface Cluster {
  kubeConfig: KubeConfig;
  custom: CustomObjectsApi;
  core: CoreV1Api;
  coordination: CoordinationV1Api;
  /** The API server's address, for messages. */
  server: string;
}

export function clusterFrom(kubeConfig: KubeConfig): Cluster {
  const server = kubeConfig.getCurrentCluster()?.server;
  if (!server) throw new Error('the kubeconfig names no current cluster; set current-context');
  return {
    kubeConfig,
    custom: kubeConfig.makeApiClient(CustomObjectsApi),
    core: kubeConfig.makeApiClient(CoreV1Api),
    coordination: kubeConfig.makeApiClient(CoordinationV1Api),
    server,
  };
}

/** The kubeconfig at `path`, or the default one (KUBECONFIG, ~/.kube/config, in-cluster). */
export function loadKubeConfig(path?: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (path !== undefined) kubeConfig.loadFromFile(path);
  else kubeConfig.loadFromDefault();
  return kubeConfig;
}
