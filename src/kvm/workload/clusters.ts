// One API client per workload cluster, built from its credential Secret (an informer keeps them in
// memory), cached while the Secret's resourceVersion is unchanged and rebuilt (the old one closed)
// when it changes. Building a client never touches the network, so an unreachable workload API
// cannot block anything here; calls made with the client fail fast (short timeout) and callers
// degrade: conditions and events on the KVMConfig, no effect on other clusters.
import { KubeClient } from '../../runtime/index.ts';
import type { ClientOptions, SharedInformer } from '../../runtime/index.ts';
import { Labels } from '../api/labels.ts';
import type { KVMConfig } from '../api/kvmconfig.ts';
import { clusterId } from '../key.ts';
import { WorkloadCredentialsError, connectionFromSecret, pickSecret } from './credentials.ts';
import type { SecretObject } from './credentials.ts';

export interface WorkloadClusters {
  /** The client of a cluster's API; throws {@link WorkloadCredentialsError} when it has no usable credentials. */
  clientFor(cluster: KVMConfig): KubeClient;
  /** Drops and closes a cluster's client (the cluster is gone). */
  forget(id: string): void;
  close(): void;
}

export interface SecretWorkloadClustersOptions {
  /** Requests to workload APIs time out after this long. Default 10 s. */
  requestTimeoutMs?: number;
  clientOptions?: ClientOptions;
}

export class SecretWorkloadClusters implements WorkloadClusters {
  private readonly cache = new Map<string, { version: string; client: KubeClient }>();

  constructor(
    private readonly secrets: Pick<SharedInformer<SecretObject>, 'list'>,
    private readonly namespace: string,
    private readonly opts: SecretWorkloadClustersOptions = {},
  ) {}

  clientFor(cluster: KVMConfig): KubeClient {
    const id = clusterId(cluster);
    const candidates = this.secrets.list(this.namespace).filter((s) => s.metadata.labels?.[Labels.cluster] === id);
    const secret = pickSecret(candidates);
    if (!secret) {
      this.forget(id);
      throw new WorkloadCredentialsError(
        `no Secret in namespace ${this.namespace} labelled ${Labels.cluster}=${id} with a kubeconfig or API certificates`,
      );
    }
    const version = `${secret.metadata.uid}/${secret.metadata.resourceVersion}`;
    const hit = this.cache.get(id);
    if (hit && hit.version === version) return hit.client;
    const connection = connectionFromSecret(cluster, secret);
    hit?.client.close();
    const client = new KubeClient(connection, {
      requestTimeoutMs: this.opts.requestTimeoutMs ?? 10_000,
      userAgent: 'kvm-operator',
      fieldManager: 'kvm-operator',
      metricsRegistry: null,
      ...this.opts.clientOptions,
    });
    this.cache.set(id, { version, client });
    return client;
  }

  forget(id: string): void {
    this.cache.get(id)?.client.close();
    this.cache.delete(id);
  }

  close(): void {
    for (const { client } of this.cache.values()) client.close();
    this.cache.clear();
  }
}
