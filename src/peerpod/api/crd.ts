// The CustomResourceDefinitions, built from the schemas in this directory (the YAML under
// config/crd/ is generated from these by `peerpods manifests`).
import { peerPodConfigCrd } from './peerpodconfig.ts';
import { API_VERSION, GROUP, VERSION, peerPodOpenApiSchema } from './peerpod.ts';
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
    ],
    openAPIV3Schema: peerPodOpenApiSchema.json,
  });
}

/** Every CRD this package installs. */
export function allCrds(): KubeObject[] {
  return [peerPodCrd(), peerPodConfigCrd()];
}

export { API_VERSION };
