// Built-in kinds' server-side behaviour: defaults, validation, update preparation, Service
// ClusterIP allocation and the pruning of fields their OpenAPI models do not know, as
// kube-apiserver applies them.
export { applyDefaults, type DefaultsOptions, type PriorityClassInfo } from './defaults/index.ts';
export { validate, type ValidateOptions } from './validation/index.ts';
export {
  prepareForUpdate,
  generationChanged,
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
export { pruneUnknownFields, unknownFields } from './openapi/unknown-fields.ts';
export { decodeErrors, goPlain, type DecodeFlavour } from './openapi/typed-decode.ts';
export { builtinFieldOrder, inGoFieldOrder, sortKeysDeep } from './field-order/field-order.ts';
export { hpaV1FromV2, hpaV2FromV1 } from './conversion/hpa.ts';
