// The node drainer: upstream's node-operator, run inside the kvm-operator against the workload
// API. A Reconciler over DrainerConfigs: each reconcile runs one drain pass and writes the status
// it returns (only when it changed beyond heartbeats, so status writes cannot feed a busy loop),
// then asks to come back in about a second until Drained or Timeout is set.
import {
  ignoreNotFound,
  isNotFound,
  type Reconciler,
  type ReconcileContext,
  type ReconcileResult,
  type Request,
} from '../../runtime/index.ts';
import { DrainerConditions, DrainerConfigs, KVMConfigs, drainFinished } from '../api/index.ts';
import type { DrainerConfig, DrainerConfigStatus, KVMConfig } from '../api/index.ts';
import type { KvmDeps } from '../deps.ts';
import { isWorkloadUnavailable } from '../workload/index.ts';
import { drainDeadline, drainNode, timeoutPass, withCondition } from './drain.ts';
import type { DrainPass } from './drain.ts';

/** How soon to try again while the workload API cannot be reached. */
export const UNAVAILABLE_RETRY_MS = 5_000;

export interface NodeDrainerOptions {
  /** Reads the DrainerConfig (an informer's lister); default: GET from the API. */
  get?: (req: Request) => DrainerConfig | undefined;
  /** Time between passes of a drain in progress. Default 1 s. */
  passIntervalMs?: number;
}

export class NodeDrainer implements Reconciler {
  constructor(
    private readonly deps: KvmDeps,
    private readonly opts: NodeDrainerOptions = {},
  ) {}

  readonly reconcile = async (req: Request, rctx: ReconcileContext): Promise<ReconcileResult | void> => {
    const { client, options } = this.deps;
    const signal = rctx.signal;
    const read = this.opts.get
      ? this.opts.get(req)
      : await ignoreNotFound(client.get<DrainerConfig>(DrainerConfigs, req.name, req.namespace, { signal }));
    if (!read || read.metadata.deletionTimestamp || drainFinished(read)) return;
    const dc = structuredClone(read);
    const now = options.now();
    const timeoutMs = options.drainTimeoutMs;
    const log = rctx.log.child({ node: dc.spec.guest.node.name, cluster: dc.spec.guest.cluster.id });

    const kvmConfig = await ignoreNotFound(
      client.get<KVMConfig>(KVMConfigs, dc.spec.guest.cluster.id, options.kvmConfigNamespace, { signal }),
    );
    if (!kvmConfig) {
      // No cluster, no workload API to drain through: give up at once, the way a timeout does.
      const message = `KVMConfig ${options.kvmConfigNamespace}/${dc.spec.guest.cluster.id} does not exist`;
      const status = withCondition(
        dc.status,
        { type: DrainerConditions.Timeout, reason: 'ClusterNotFound', message },
        now,
      );
      await this.writeStatus(dc, status, signal);
      log.info(message);
      return;
    }

    let result: DrainPass;
    try {
      const wc = this.deps.workload.clientFor(kvmConfig);
      result = await drainNode({ dc, wc, now, timeoutMs, log, signal, passIntervalMs: this.opts.passIntervalMs });
    } catch (e) {
      if (!isWorkloadUnavailable(e)) throw e;
      // Unreachable: the timeout still applies, and is the only way such a drain ends.
      const timedOut = timeoutPass(dc, now, timeoutMs);
      if (timedOut) {
        result = timedOut;
      } else {
        const message = `cannot drain node ${dc.spec.guest.node.name}: ${(e as Error).message}`;
        log.info({ error: (e as Error).message }, 'workload cluster unavailable; retrying');
        this.deps.events.warning(dc, 'WorkloadClusterUnavailable', message);
        return { requeueAfter: Math.max(1, Math.min(UNAVAILABLE_RETRY_MS, drainDeadline(dc, timeoutMs) - now)) };
      }
    }
    if (result.changed) await this.writeStatus(dc, result.status, signal);
    if (result.finished) {
      const timedOut = result.status.conditions?.some(
        (c) => c.type === DrainerConditions.Timeout && c.status === 'True',
      );
      if (timedOut) this.deps.events.warning(dc, 'DrainTimeout', 'the node was not drained in time');
      else this.deps.events.normal(dc, 'NodeDrained', `node ${dc.spec.guest.node.name} drained`);
      log.info({ timedOut }, 'drain finished');
      return;
    }
    return { requeueAfter: result.requeueAfterMs };
  };

  /** Merge-patches the status subresource; a DrainerConfig deleted meanwhile is not an error. */
  private async writeStatus(dc: DrainerConfig, status: DrainerConfigStatus, signal: AbortSignal): Promise<void> {
    try {
      await this.deps.client.patch(
        DrainerConfigs,
        dc.metadata.name as string,
        dc.metadata.namespace,
        { status },
        'merge',
        {
          subresource: 'status',
          signal,
        },
      );
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}

export function nodeDrainerReconciler(deps: KvmDeps, opts: NodeDrainerOptions = {}): NodeDrainer {
  return new NodeDrainer(deps, opts);
}
