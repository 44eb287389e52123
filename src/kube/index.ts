// peerpods/kube: the embedded Kubernetes-API-compatible control plane.
export {
  startControlPlane,
  type ControlPlane,
  type ControlPlaneOptions,
  type ControlPlaneInternals,
} from './control-plane.ts';
export { MemoryStorage } from './storage/memory.ts';
export type { Storage } from './storage/storage.ts';
export { StatusError } from './errors.ts';
export type { KubeObject, Status } from './types.ts';
