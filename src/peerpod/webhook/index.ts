// peerpods/peerpod webhook: the pod mutator and the server that runs it.
export {
  Annotations,
  DEFAULT_EXTENDED_RESOURCE,
  DEFAULT_RUNTIME_CLASS,
  DROP_MODES,
  GPU_RESOURCE,
  mutatePod,
} from './mutate.ts';
export type { DropMode, MutationResult, MutatorOptions, Pod } from './mutate.ts';
export { DEFAULT_MAX_MEMORY_MIB, DEFAULT_MAX_VCPUS } from './vm-limits.ts';
export { MUTATE_POD_PATH, podMutator, podWebhookServer } from './handler.ts';
export type { PodWebhookServerOptions } from './handler.ts';
