// The kvm-operator's sample objects on an embedded control plane: a KVMConfig and a Release, the
// CRDs installed, a client. Shared by the kvm, CLI and end-to-end tests; built on the public entries only.
import { KubeClient, installCrds, serverSideApply, silentLogger } from '../../src/runtime/index.ts';
import type { KubeObject } from '../../src/runtime/index.ts';
import { KVMConfigs, Labels, Releases, kvmCrds } from '../../src/kvm/index.ts';
import type { KVMConfig, Release } from '../../src/kvm/index.ts';
import type { TestCluster } from './control-plane.ts';

export const OPERATOR_VERSION = '3.15.0';
export const RELEASE_VERSION = '14.1.0';

export function sampleRelease(version = RELEASE_VERSION, kubernetes = '1.19.8'): Release {
  return {
    apiVersion: 'release.giantswarm.io/v1alpha1',
    kind: 'Release',
    metadata: { name: `v${version}` },
    spec: {
      state: 'active',
      components: [
        { name: 'kubernetes', version: kubernetes },
        { name: 'calico', version: '3.15.3' },
        { name: 'etcd', version: '3.4.14' },
        { name: 'containerlinux', version: '2605.12.0' },
      ],
    },
  };
}

/** A KVMConfig with `masters` masters and `workers` workers named m1.., w1.. (override freely). */
export function sampleKvmConfig(
  opts: { id?: string; masters?: number; workers?: number; release?: string; workerIds?: string[] } = {},
): KVMConfig {
  const id = opts.id ?? 'abc12';
  const masterIds = Array.from({ length: opts.masters ?? 1 }, (_, i) => `m${i + 1}`);
  const workerIds = opts.workerIds ?? Array.from({ length: opts.workers ?? 2 }, (_, i) => `w${i + 1}`);
  const vm = { cpus: 2, memory: '4G', disk: 20, dockerVolumeSizeGB: 30 };
  return {
    apiVersion: 'provider.giantswarm.io/v1alpha1',
    kind: 'KVMConfig',
    metadata: {
      name: id,
      namespace: 'default',
      labels: {
        [Labels.operatorVersion]: OPERATOR_VERSION,
        [Labels.releaseVersion]: opts.release ?? RELEASE_VERSION,
      },
    },
    spec: {
      cluster: {
        id,
        customer: { id: 'acme' },
        etcd: { domain: `etcd.${id}.k8s.example.com`, port: 2379, prefix: 'giantswarm.io' },
        kubernetes: { api: { domain: `api.${id}.k8s.example.com`, securePort: 443 } },
        masters: masterIds.map((m) => ({ id: m })),
        workers: workerIds.map((w) => ({ id: w })),
      },
      kvm: {
        masters: masterIds.map(() => ({ ...vm })),
        workers: workerIds.map(() => ({ ...vm })),
        network: { flannel: { vni: 26 } },
        portMappings: [],
        k8sKVM: { storageType: 'hostPath' },
      },
    },
  };
}

/** Installs the kvm CRDs and waits until they are served. */
export async function installKvmCrds(client: KubeClient): Promise<void> {
  await installCrds(client, kvmCrds(), { fieldManager: 'test' });
}

export function clientOf(cluster: TestCluster): KubeClient {
  return KubeClient.fromKubeconfigString(cluster.kubeconfig, { metricsRegistry: null, logger: silentLogger() });
}

/** Creates the KVMConfig (and the Releases) on the server and returns it as stored. */
export async function createKvmConfig(
  client: KubeClient,
  c: KVMConfig,
  releases: Release[] = [sampleRelease()],
): Promise<KVMConfig> {
  for (const r of releases)
    await serverSideApply(client, Releases, r as KubeObject, { fieldManager: 'test', force: true });
  return client.create<KVMConfig>(KVMConfigs, c);
}
