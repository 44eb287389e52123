// The CustomResourceDefinitions, built from the schemas in this directory (the YAML under
// config/crd/ is generated from these by `peerpods manifests`).
import { peerPodConfigCrd } from './peerpodconfig.ts';
import { API_VERSION, GROUP, PeerPodAnnotations, VERSION, peerPodOpenApiSchema } from './peerpod.ts';
import { customResourceDefinition } from '../../runtime/index.ts';
import type { KubeObject } from '../../runtime/index.ts';

export const PEERPOD_CRD_NAME = `peerpods.${GROUP}`;

export function peerPodCrd(): KubeObject {
  return customResourceDefinition({
    group: GROUP,
    version: VERSION,
    scope: 'Namespaced',
    names: { kind: 'PeerPod', plural: 'peerpods', singular: 'peerpod' },
    printerColumns: [
      { name: 'Provider', type: 'string', jsonPath: '.spec.cloudProvider' },
      { name: 'Instance', type: 'string', jsonPath: '.spec.instanceID' },
      { name: 'Pod', type: 'string', jsonPath: '.metadata.ownerReferences[0].name' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      // -o wide only (priority 1), after Age as kube's own wide columns (pods: IP, NODE).
      { name: 'Node', type: 'string', jsonPath: annotationPath(PeerPodAnnotations.node), priority: 1 },
      { name: 'IP', type: 'string', jsonPath: annotationPath(PeerPodAnnotations.ip), priority: 1 },
      { name: 'Size', type: 'string', jsonPath: annotationPath(PeerPodAnnotations.vmSize), priority: 1 },
    ],
    openAPIV3Schema: peerPodOpenApiSchema.json,
  });
}

/** A printer-column JSONPath to an annotation: the dots of the key escaped, as client-go's jsonpath reads them. */
function annotationPath(key: string): string {
  return `.metadata.annotations.${key.replaceAll('.', '\\.')}`;
}

/** Every CRD this package installs. */
export function allCrds(): KubeObject[] {
  return [peerPodCrd(), peerPodConfigCrd()];
}

export { API_VERSION };
