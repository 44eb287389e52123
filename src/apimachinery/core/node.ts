// Node facts read the same way by the scheduler and the operators.
import { statusCondition } from './conditions.ts';

/** The node's Ready condition is True (the kubelet is posting status and the node can run pods). */
export function isNodeReady(node: object): boolean {
  return statusCondition(node, 'Ready')?.status === 'True';
}
