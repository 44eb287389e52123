// What an administrator would apply before using peer pods: the operator namespace, and for each
// provider its RuntimeClass, its settings (peer-pods-cm, peer-pods-secret for the first) and its
// PeerPodConfig. Server-side apply, so a restart against kept state rewrites nothing another manager
// changed.
import { ConfigMaps, Namespaces, RuntimeClasses, Secrets, serverSideApply } from '../../runtime/index.ts';
import type { KubeClient, KubeObject, ResourceType } from '../../runtime/index.ts';
import { API_VERSION, PeerPodConfigs } from '../api/index.ts';
import type { PeerPodConfig } from '../api/index.ts';
import { DEFAULT_CONFIGMAP, DEFAULT_SECRET } from '../controllers/index.ts';
import { SAMPLE_CONFIG_NAME } from './settings.ts';
import type { StackBinding } from './settings.ts';

const FIELD_MANAGER = 'peerpods-start';

export interface BootstrapOptions {
  namespace: string;
  /** The providers, the primary first. */
  bindings: StackBinding[];
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

/** The primary binding's config is the sample; another names its RuntimeClass, resource, provider and settings. */
export function stackPeerPodConfig(b: StackBinding, namespace: string, limit: number): PeerPodConfig {
  if (b.primary) return samplePeerPodConfig(namespace, limit);
  return {
    apiVersion: API_VERSION,
    kind: 'PeerPodConfig',
    metadata: { name: b.configName, namespace },
    spec: {
      limit,
      runtimeClassName: b.runtimeClassName,
      extendedResource: b.extendedResource,
      cloudProvider: b.provider,
      configMapName: b.configMap,
      cloudSecretName: b.secret,
    },
  } as PeerPodConfig;
}

/** Everything but the PeerPodConfigs, which go in once the controllers run (applyPeerPodConfigs). */
export async function applySettings(client: KubeClient, o: BootstrapOptions): Promise<void> {
  const apply = <T extends KubeObject>(type: ResourceType, obj: T) =>
    serverSideApply(client, type, obj, { fieldManager: FIELD_MANAGER });
  await apply(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: o.namespace } });
  for (const b of o.bindings) {
    await apply(RuntimeClasses, {
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: b.runtimeClassName },
      handler: b.runtimeClassName,
    } as KubeObject);
    await apply(ConfigMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: b.configMap, namespace: o.namespace },
      data: b.providerConfig,
    } as KubeObject);
    // The local providers need no credentials; the Secret exists because every install has one.
    await apply(Secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: b.secret, namespace: o.namespace },
      type: 'Opaque',
      stringData: {},
    } as KubeObject);
  }
}

/** One after the other, the primary first: the oldest config holds the defaults and deploys the webhook. */
export async function applyPeerPodConfigs(client: KubeClient, o: BootstrapOptions): Promise<PeerPodConfig[]> {
  const out: PeerPodConfig[] = [];
  for (const b of o.bindings) {
    out.push(
      await serverSideApply(client, PeerPodConfigs, stackPeerPodConfig(b, o.namespace, o.limit), {
        fieldManager: FIELD_MANAGER,
      }),
    );
  }
  return out;
}
