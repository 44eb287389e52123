// What an administrator would apply before using peer pods: the operator namespace, the RuntimeClass,
// the provider settings (peer-pods-cm, peer-pods-secret) and a PeerPodConfig. Server-side apply, so a
// restart against kept state rewrites nothing another manager changed.
import { ConfigMaps, Namespaces, RuntimeClasses, Secrets, serverSideApply } from '../../runtime/index.ts';
import type { KubeClient, KubeObject, ResourceType } from '../../runtime/index.ts';
import { API_VERSION, PeerPodConfigs } from '../api/index.ts';
import type { PeerPodConfig } from '../api/index.ts';
import { DEFAULT_CONFIGMAP, DEFAULT_SECRET } from '../controllers/index.ts';
import { RUNTIME_CLASS, SAMPLE_CONFIG_NAME } from './settings.ts';

const FIELD_MANAGER = 'peerpods-start';

export interface BootstrapOptions {
  namespace: string;
  providerConfig: Record<string, string>;
  limit: number;
}

export function samplePeerPodConfig(namespace: string, limit: number): PeerPodConfig {
  return {
    apiVersion: API_VERSION,
    kind: 'PeerPodConfig',
    metadata: { name: SAMPLE_CONFIG_NAME, namespace },
    // The default node selector (node.kubernetes.io/worker) matches every simulated node.
    spec: { limit, cloudSecretName: DEFAULT_SECRET, configMapName: DEFAULT_CONFIGMAP },
  } as PeerPodConfig;
}

/** Everything but the PeerPodConfig, which goes in once the controllers run (applyPeerPodConfig). */
export async function applySettings(client: KubeClient, o: BootstrapOptions): Promise<void> {
  const apply = <T extends KubeObject>(type: ResourceType, obj: T) =>
    serverSideApply(client, type, obj, { fieldManager: FIELD_MANAGER });
  await apply(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: o.namespace } });
  await apply(RuntimeClasses, {
    apiVersion: 'node.k8s.io/v1',
    kind: 'RuntimeClass',
    metadata: { name: RUNTIME_CLASS },
    handler: RUNTIME_CLASS,
  } as KubeObject);
  await apply(ConfigMaps, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: DEFAULT_CONFIGMAP, namespace: o.namespace },
    data: o.providerConfig,
  } as KubeObject);
  // The local providers need no credentials; the Secret exists because every install has one.
  await apply(Secrets, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: DEFAULT_SECRET, namespace: o.namespace },
    type: 'Opaque',
    stringData: {},
  } as KubeObject);
}

export async function applyPeerPodConfig(client: KubeClient, o: BootstrapOptions): Promise<PeerPodConfig> {
  return serverSideApply(client, PeerPodConfigs, samplePeerPodConfig(o.namespace, o.limit), {
    fieldManager: FIELD_MANAGER,
  });
}
