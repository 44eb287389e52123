// What every kvm-operator handler may use. Handlers take this one object, so a test builds it
// once against an embedded control plane and hands it to any handler.
import type { EventRecorder, KubeClient, Logger } from '../runtime/index.ts';
import type { Release } from './api/release.ts';
import type { ResolvedKvmOptions } from './options.ts';
import type { WorkloadClusters } from './workload/clusters.ts';

export interface KvmDeps {
  /** The management cluster. */
  client: KubeClient;
  /** Clients of the workload clusters. */
  workload: WorkloadClusters;
  /** Reads a Release by name ("v14.1.0"), from the cache. */
  release(name: string): Release | undefined;
  events: Pick<EventRecorder, 'normal' | 'warning'>;
  options: ResolvedKvmOptions;
  log: Logger;
}
