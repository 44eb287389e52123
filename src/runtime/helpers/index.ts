export { addFinalizer, addFinalizerTo, hasFinalizer, removeFinalizer, removeFinalizerFrom } from './finalizers.ts';
export type { FinalizerWriteOptions } from './finalizers.ts';
export {
  AlreadyOwnedError,
  getControllerOf,
  isControlledBy,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from './owner.ts';
export {
  findCondition,
  isConditionFalse,
  isConditionTrue,
  removeCondition,
  setCondition,
  setStatusCondition,
} from './conditions.ts';
export type { Condition, ConditionInput, ConditionStatus } from './conditions.ts';
export { patchStatus, patchStatusFrom } from './status.ts';
export type { StatusPatchOptions } from './status.ts';
export { serverSideApply, serverSideApplyStatus } from './apply.ts';
export type { ApplyOptions } from './apply.ts';
export { createOrPatch } from './create-or-patch.ts';
export type { CreateOrPatchOptions, OperationResult } from './create-or-patch.ts';
export { CacheTimeoutError, waitForCache } from './read-your-writes.ts';
export type { ResourceVersionWaiter } from './read-your-writes.ts';
export type { HelperClient } from './client.ts';
