// Shared fixtures of the kvm-operator tests: a sample KVMConfig and Release, the CRDs installed on
// an embedded control plane, KvmDeps built against it, and a HandlerContext that records the flags
// a handler sets, so handlers can be driven one call at a time.
import { EventRecorder, KubeClient, serverSideApply, silentLogger } from '../../src/runtime/index.ts';
import type { HandlerContext, HandlerEvent, KubeObject } from '../../src/runtime/index.ts';
import { KVMConfigs, Labels, Releases, kvmCrds } from '../../src/kvm/api/index.ts';
import type { KVMConfig, Release } from '../../src/kvm/api/index.ts';
import type { KvmDeps } from '../../src/kvm/deps.ts';
import { resolveKvmOptions } from '../../src/kvm/options.ts';
import type { KvmOperatorOptions } from '../../src/kvm/options.ts';
import type { WorkloadClusters } from '../../src/kvm/workload/index.ts';
import { WorkloadCredentialsError } from '../../src/kvm/workload/index.ts';
import { CustomResourceDefinitions } from '../../src/runtime/index.ts';
import type { TestCluster } from '../helpers/control-plane.ts';
import { eventually } from '../helpers/control-plane.ts';

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
  for (const crd of kvmCrds()) {
    await serverSideApply(client, CustomResourceDefinitions, crd, { fieldManager: 'test', force: true });
  }
  for (const crd of kvmCrds()) {
    await eventually(
      async () => {
        const got = await client.get(CustomResourceDefinitions, crd.metadata.name as string);
        const conds = ((got.status as { conditions?: { type: string; status: string }[] }) ?? {}).conditions ?? [];
        return conds.some((c) => c.type === 'Established' && c.status === 'True');
      },
      { what: `CRD ${crd.metadata.name} established` },
    );
  }
}

export function clientOf(cluster: TestCluster): KubeClient {
  return KubeClient.fromKubeconfigString(cluster.kubeconfig, { metricsRegistry: null, logger: silentLogger() });
}

/** Workload clusters served by fixed clients (or none: every call then fails as "no credentials"). */
export function fixedWorkloadClusters(clients: Record<string, KubeClient> = {}): WorkloadClusters {
  return {
    clientFor(c: KVMConfig): KubeClient {
      const client = clients[c.spec.cluster.id];
      if (!client) throw new WorkloadCredentialsError(`no workload client for ${c.spec.cluster.id} in this test`);
      return client;
    },
    forget() {},
    close() {},
  };
}

export function testDeps(
  client: KubeClient,
  opts: { workload?: WorkloadClusters; releases?: Release[]; options?: KvmOperatorOptions } = {},
): KvmDeps {
  const releases = new Map((opts.releases ?? [sampleRelease()]).map((r) => [r.metadata.name as string, r]));
  return {
    client,
    workload: opts.workload ?? fixedWorkloadClusters(),
    release: (name) => releases.get(name),
    events: new EventRecorder(client, { component: 'kvm-operator-test', logger: silentLogger() }),
    options: resolveKvmOptions({ version: OPERATOR_VERSION, ...opts.options }),
    log: silentLogger(),
  };
}

export interface RecordingContext extends HandlerContext {
  readonly flags: {
    handlerCanceled?: string;
    reconciliationCanceled?: string;
    finalizerKept?: string;
    requeueAfter?: number;
  };
}

/** A HandlerContext for calling a handler directly; `flags` shows what it asked for. */
export function recordingContext(event: HandlerEvent = 'update'): RecordingContext {
  const flags: RecordingContext['flags'] = {};
  return {
    event,
    signal: new AbortController().signal,
    log: silentLogger(),
    flags,
    cancelHandler: (r) => void (flags.handlerCanceled ??= r),
    cancelReconciliation: (r) => void (flags.reconciliationCanceled ??= r),
    keepFinalizer: (r) => void (flags.finalizerKept ??= r),
    requeueAfter: (ms) => void (flags.requeueAfter = Math.min(flags.requeueAfter ?? ms, ms)),
    get handlerCanceled() {
      return flags.handlerCanceled !== undefined;
    },
    get reconciliationCanceled() {
      return flags.reconciliationCanceled !== undefined;
    },
  };
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
