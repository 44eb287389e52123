export {
  API_VERSION,
  ConditionTypes,
  GROUP,
  PEERPOD_FINALIZER,
  PHASES,
  PeerPodAnnotations,
  PeerPods,
  VERSION,
  peerPodOpenApiSchema,
  peerPodSpecSchema,
  peerPodStatusSchema,
} from './peerpod.ts';
export type { PeerPod, PeerPodPhase, PeerPodSpec, PeerPodStatus } from './peerpod.ts';
export { PEERPOD_CRD_NAME, allCrds, peerPodCrd } from './crd.ts';
export * from './peerpodconfig.ts';
export * from './create-attempts.ts';
export { formatVmSize, parseVmSize } from './vm-size-text.ts';
export type { VmSizeText } from './vm-size-text.ts';
export * from './pool.ts';
