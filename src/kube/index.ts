// peerpods/kube: the embedded Kubernetes-API-compatible control plane.
export {
  startControlPlane,
  type ControlPlane,
  type ControlPlaneOptions,
  type ControlPlaneInternals,
} from './control-plane.ts';
export { MemoryStorage } from './storage/memory.ts';
export { SqliteStorage, StorageLockedError, StorageOpenError, type SqliteStorageOptions } from './storage/sqlite.ts';
export { EtcdStorage, EtcdStorageError, type EtcdStorageOptions } from './storage/etcd/storage.ts';
export { LocalEtcd, type LocalEtcdOptions } from './storage/etcd/local.ts';
export type { FaultAction, FaultHandle, FaultMatch, FaultRule, Faults } from './server/faults/index.ts';
export type { Storage } from './storage/storage.ts';
export { endpointsResolver } from './admission/resolver.ts';
export type { ServiceAddress, ServiceResolver } from './admission/types.ts';
// Built-in types a CRD schema can embed (`containers: s.array(coreSchemas.Container)`).
export { coreSchemas } from './builtins/core-schemas.ts';
export { builtinSchema } from './builtins/openapi/structural.ts';
export { StatusError } from '../apimachinery/errors/index.ts';
export type { KubeObject, Status } from '../apimachinery/meta/index.ts';
