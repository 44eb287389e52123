// The peer pod users create: a plain Pod with the peer runtime class. Its resource requests become
// the VM size (the webhook writes them as annotations and asks for one kata.peerpods.io/vm instead).
import type { KubeObject } from '../../runtime/index.ts';
import { RUNTIME_CLASS } from './settings.ts';

export function peerPodManifest(
  name: string,
  resources: { cpu: string; memory: string } = { cpu: '1', memory: '128Mi' },
  namespace = 'default',
  /** Another provider's RuntimeClass (e.g. kata-remote-sim). */
  runtimeClassName = RUNTIME_CLASS,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: {
      runtimeClassName,
      containers: [
        { name: 'app', image: 'registry.k8s.io/pause:3.9', resources: { requests: resources, limits: resources } },
      ],
    },
  };
}
