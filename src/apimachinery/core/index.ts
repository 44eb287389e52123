export { statusCondition } from './conditions.ts';
export type { ConditionView } from './conditions.ts';
export { isNodeReady } from './node.ts';
export { isPodReady, isPodTerminal } from './pod.ts';
export type { PolicyRule } from './rbac.ts';
