// The boundary between the process runtime (which starts, watches and stops container processes)
// and the container's configuration (environment and volumes), which the kubelet resolves from
// the API before a container starts, as kubelet's kuberuntime does before CreateContainer.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';

/** One volume mount as the process sees it: a path inside the container backed by a host path. */
export interface VolumeMount {
  /** The container path (`volumeMounts[].mountPath`, plus subPath handling already applied). */
  mountPath: string;
  /** Where the content really is on this machine (a directory or, for subPath, a file). */
  hostPath: string;
  readOnly: boolean;
}

/** Everything needed to start one container instance. */
export interface ContainerConfig {
  /** The container's environment, resolved (env, envFrom, service links, $(VAR) expansion). */
  env: Record<string, string>;
  mounts: VolumeMount[];
  /** `workingDir` as written in the spec (a container path), if any. */
  workingDir?: string;
}

/**
 * A container cannot start because its configuration cannot be resolved (a missing ConfigMap,
 * Secret or key that is not optional). The kubelet shows it as the container's
 * `waiting{reason: CreateContainerConfigError, message}` and retries.
 */
export class ContainerConfigError extends Error {
  readonly reason = 'CreateContainerConfigError';
}

export interface ContainerConfigSource {
  /**
   * Materialises the pod's volumes under `podDir` (once per pod; later calls reuse them) and
   * resolves one container's configuration. Throws ContainerConfigError when it cannot.
   */
  prepare(pod: JsonObject, container: JsonObject, podDir: string): Promise<ContainerConfig>;
  /** The pod is gone: stop refreshing its volumes (the runtime removes `podDir`). */
  release(podUid: string): void;
}
