// The pod handler of the drainer controller (upstream resource/pod, spec §5): holds a deleted node
// pod (through the drainer's finalizer) until its workload node is drained. On delete it asks the
// node drainer for a drain with a DrainerConfig named after the pod, waits for Drained or Timeout
// (or for the VM to have stopped by itself), then records drained="True" on the pod and deletes it
// at once; the next event sees the annotation and lets the finalizer go.
import {
  Pods,
  ignoreAlreadyExists,
  ignoreNotFound,
  isConflict,
  isInvalid,
  isNotFound,
  type HandlerContext,
  type ResourceHandler,
} from '../../../runtime/index.ts';
import {
  DRAINER_VERSION_BUNDLE,
  DrainerConditions,
  DrainerConfigs,
  KVMConfigs,
  Labels,
  type DrainerConfig,
  type KVMConfig,
} from '../../api/index.ts';
import type { KvmDeps } from '../../deps.ts';
import { apiEndpoint } from '../../key.ts';
import { Annotations } from '../../api/labels.ts';
import { escapePointerToken } from '../../../apimachinery/json/index.ts';
import {
  apiEndpointOfPod,
  clusterIdOfPod,
  isDeleting,
  isPodDrained,
  noContainerRunning,
  type Pod,
} from '../../pods.ts';

/** How soon to retry after the drained annotation lost a race with another writer. */
export const CONFLICT_RETRY_MS = 1_000;

export type DrainOutcome = 'Drained' | 'Timeout' | 'VMStopped';

export type DrainDecision =
  /** The pod is gone already. */
  | { action: 'done'; reason: string }
  /** The cluster is gone or going: nothing left to drain into; let the pod go. */
  | { action: 'skip'; reason: string }
  /** drained="True": finishing already happened; make sure its deletes did too. */
  | { action: 'drained' }
  | { action: 'requestDrain' }
  | { action: 'finish'; outcome: DrainOutcome }
  | { action: 'wait' };

function conditionTrue(dc: DrainerConfig, type: string): boolean {
  return (dc.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

/** The drain state machine of one deleted node pod; `pod` is the fresh copy (undefined: gone). */
export function drainDecision(input: {
  pod?: Pod;
  kvmConfig?: KVMConfig;
  drainerConfig?: DrainerConfig;
}): DrainDecision {
  const { pod, kvmConfig, drainerConfig } = input;
  if (!pod) return { action: 'done', reason: 'the pod is gone' };
  if (!kvmConfig) return { action: 'skip', reason: 'the cluster has no KVMConfig' };
  if (isDeleting(kvmConfig)) return { action: 'skip', reason: 'the cluster is being deleted' };
  if (isPodDrained(pod)) return { action: 'drained' };
  if (!drainerConfig) return { action: 'requestDrain' };
  if (conditionTrue(drainerConfig, DrainerConditions.Drained)) return { action: 'finish', outcome: 'Drained' };
  if (conditionTrue(drainerConfig, DrainerConditions.Timeout)) return { action: 'finish', outcome: 'Timeout' };
  // v3.18: a VM that stopped by itself (no container running) has nothing left to drain.
  if (noContainerRunning(pod)) return { action: 'finish', outcome: 'VMStopped' };
  return { action: 'wait' };
}

/** The DrainerConfig asking to drain the pod's node (upstream's fields, no owner: the pod is going). */
export function drainerConfigFor(pod: Pod, kvmConfig: KVMConfig, operatorVersion: string): DrainerConfig {
  const id = kvmConfig.spec.cluster.id;
  const name = pod.metadata.name as string;
  return {
    apiVersion: `${DrainerConfigs.group}/${DrainerConfigs.version}`,
    kind: 'DrainerConfig',
    metadata: {
      name,
      namespace: pod.metadata.namespace as string,
      labels: { [Labels.cluster]: id, [Labels.operatorVersion]: operatorVersion },
    },
    spec: {
      guest: {
        cluster: { api: { endpoint: apiEndpointOfPod(pod) ?? apiEndpoint(kvmConfig) }, id },
        node: { name },
      },
      versionBundle: { version: DRAINER_VERSION_BUNDLE },
    },
  };
}

/** A JSON patch setting drained="True", refused by the server if the pod changed since we read it. */
export function drainedAnnotationPatch(pod: Pod): unknown[] {
  const test = { op: 'test', path: '/metadata/resourceVersion', value: pod.metadata.resourceVersion };
  const set = pod.metadata.annotations
    ? {
        op: 'add',
        path: `/metadata/annotations/${escapePointerToken(Annotations.drained)}`,
        value: 'True',
      }
    : { op: 'add', path: '/metadata/annotations', value: { [Annotations.drained]: 'True' } };
  return [test, set];
}

export function podDrainHandler(deps: KvmDeps): ResourceHandler<Pod> {
  const client = deps.client;

  async function finish(pod: Pod, outcome: DrainOutcome | undefined, ctx: HandlerContext): Promise<boolean> {
    const name = pod.metadata.name as string;
    const ns = pod.metadata.namespace as string;
    if (outcome) {
      // The annotation goes first: were the DrainerConfig deleted first and this write lost a
      // race, the next pass would find no DrainerConfig and start a new drain (and timeout).
      try {
        await client.patch(Pods, name, ns, drainedAnnotationPatch(pod), 'json', { signal: ctx.signal });
      } catch (e) {
        // NotFound: the pod is gone; only its DrainerConfig is left to clean up.
        // A failed `test` is 422 Invalid; some servers answer 409.
        if (!isNotFound(e) && (isInvalid(e) || isConflict(e))) {
          ctx.keepFinalizer('the pod changed while recording the drain; retrying');
          ctx.requeueAfter(CONFLICT_RETRY_MS);
          return false;
        }
        if (!isNotFound(e)) throw e;
      }
    }
    await ignoreNotFound(client.delete(DrainerConfigs, name, ns, { signal: ctx.signal }));
    // Grace 0: the preStop hook only waits for the drain, which is over.
    await ignoreNotFound(client.delete(Pods, name, ns, { gracePeriodSeconds: 0, signal: ctx.signal }));
    if (outcome === 'Timeout') {
      deps.events.warning(pod, 'DrainTimeout', `draining node ${name} timed out; the VM is stopped anyway`);
    } else if (outcome) {
      const how = outcome === 'Drained' ? 'drained' : 'not drained, but its VM had already stopped';
      deps.events.normal(pod, 'NodeDrained', `node ${name} ${how}; deleting the pod`);
    }
    return true;
  }

  return {
    name: 'pod',
    // Nothing to create: the drainer's finalizer on every node pod is the point.
    async ensureCreated() {},
    async ensureDeleted(cached, ctx) {
      const name = cached.metadata.name as string;
      const ns = cached.metadata.namespace as string;
      const pod = await ignoreNotFound(client.get<Pod>(Pods, name, ns, { signal: ctx.signal }));
      const id = pod ? clusterIdOfPod(pod) : undefined;
      const kvmConfig = id
        ? await ignoreNotFound(
            client.get<KVMConfig>(KVMConfigs, id, deps.options.kvmConfigNamespace, { signal: ctx.signal }),
          )
        : undefined;
      const needsDrainerConfig = pod && kvmConfig && !isDeleting(kvmConfig) && !isPodDrained(pod);
      const drainerConfig = needsDrainerConfig
        ? await ignoreNotFound(client.get<DrainerConfig>(DrainerConfigs, name, ns, { signal: ctx.signal }))
        : undefined;
      const decision = drainDecision({ pod, kvmConfig, drainerConfig });
      const log = ctx.log.child({ decision: decision.action });
      switch (decision.action) {
        case 'done':
          log.info({ reason: decision.reason }, 'not draining');
          return;
        case 'skip':
          // The workload cluster is going away with its VMs: holding each node pod for its 300 s
          // grace period (the preStop hook waits for a drain that will never be asked for) would
          // only stall the teardown, so the VM is stopped now.
          log.info({ reason: decision.reason }, 'not draining; stopping the VM now');
          await ignoreNotFound(client.delete(Pods, name, ns, { gracePeriodSeconds: 0, signal: ctx.signal }));
          return;
        case 'drained':
          // Finishing is idempotent: repeat its deletes in case a previous pass failed midway.
          await finish(pod as Pod, undefined, ctx);
          return;
        case 'requestDrain':
          await ignoreAlreadyExists(
            client.create(DrainerConfigs, drainerConfigFor(pod as Pod, kvmConfig as KVMConfig, deps.options.version), {
              signal: ctx.signal,
            }),
          );
          deps.events.normal(pod as Pod, 'DrainingNode', `draining workload node ${name} before its VM stops`);
          log.info('requested the drain of the workload node');
          ctx.keepFinalizer('draining the workload node');
          return;
        case 'finish':
          log.info({ outcome: decision.outcome }, 'drain over; deleting the pod');
          // Kept even on success: the next event sees drained="True" and releases it.
          if (await finish(pod as Pod, decision.outcome, ctx)) ctx.keepFinalizer('the drain is being recorded');
          return;
        case 'wait':
          ctx.keepFinalizer('the workload node is still draining');
          ctx.requeueAfter(deps.options.recheckMs);
          return;
      }
    },
  };
}
