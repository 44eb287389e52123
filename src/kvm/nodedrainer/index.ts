// The node drainer: drains workload-cluster nodes for DrainerConfigs (upstream's node-operator).
export { NodeDrainer, nodeDrainerReconciler, UNAVAILABLE_RETRY_MS } from './reconciler.ts';
export type { NodeDrainerOptions } from './reconciler.ts';
export {
  DRAIN_PASS_INTERVAL_MS,
  drainDeadline,
  drainNode,
  evictPod,
  evictionPlan,
  timeoutPass,
  withCondition,
} from './drain.ts';
export type { DrainNodeArgs, DrainPass, EvictionPlan, EvictionResult, WorkloadClient } from './drain.ts';
