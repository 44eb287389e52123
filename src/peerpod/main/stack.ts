// What `peerpods start` and `peerpods demo` hold of the stack once it is deployed: a client of the
// cluster, a provider handle on the same cloud state as the adaptor and controller pods (to count
// VMs; the demo's orphan VM), and the drain that deletes every peer pod before the cluster stops.
// The deploying itself is the CLI's (install + deploy + settings, as against any cluster).
import type { KubeClient } from '../../runtime/index.ts';
import type { CloudProvider } from '../providers/index.ts';
import type { StackBinding } from './settings.ts';
import type { DrainReport } from './shutdown.ts';

/** One provider of the stack: its binding (RuntimeClass, config, settings) and a handle on its VMs. */
export interface StackProvider {
  binding: StackBinding;
  provider: CloudProvider;
}

export interface PeerPodsStack {
  client: KubeClient;
  /** The primary provider (behind kata-remote) and its settings. */
  provider: CloudProvider;
  providerConfig: Record<string, string>;
  /** Every provider the stack runs, the primary first (one unless several run side by side). */
  providers: StackProvider[];
  namespace: string;
  clusterUid: string;
  /** VMs a killed earlier run left behind, deleted at start. */
  reapedAtStart: number;
  /** Deletes every peer pod (their adaptors delete the VMs), then any VM still tagged for this cluster. */
  drain(timeoutMs?: number): Promise<DrainReport>;
}
