// Built-in kinds' server-side behaviour: defaults, validation, update preparation and Service
// ClusterIP allocation, as kube-apiserver applies them.
export { applyDefaults, type DefaultsOptions, type PriorityClassInfo } from './defaults.ts';
export { validate, type ValidateOptions } from './validate.ts';
export {
  prepareForUpdate,
  hasGeneration,
  hasStatusSubresource,
  type Subresource,
  type UpdateOptions,
} from './status.ts';
export {
  ClusterIpAllocator,
  ClusterIpAllocationError,
  type AllocationFailure,
  type ClusterIpAllocatorOptions,
  type IpFamily,
} from './clusterip.ts';
export { assignClusterIp, reconcileClusterIp } from './service.ts';
export { computeQosClass, type QosClass } from './qos.ts';
export { canonicalQuantity, compareQuantity, formatQuantity, parseQuantity, Quantity } from './quantity.ts';
