// Release (release.giantswarm.io/v1alpha1, cluster-scoped): the versions of the components a
// workload cluster runs. A KVMConfig labelled release.giantswarm.io/version=X takes its versions
// from the Release named vX; the KVMConfig itself has no version fields.
import { customResource, customResourceDefinition, s } from '../../runtime/index.ts';
import type { KubeObject, Static } from '../../runtime/index.ts';

export const RELEASE_GROUP = 'release.giantswarm.io';
export const RELEASE_VERSION = 'v1alpha1';
export const Releases = customResource(RELEASE_GROUP, RELEASE_VERSION, 'Release', 'releases', false);

const releaseSpecSchema = s.object(
  {
    state: s.enum(['active', 'deprecated', 'wip', 'preview'] as const),
    date: s.dateTime(),
    components: s.array(s.object({ name: s.string(), version: s.string() }, { required: ['name', 'version'] }), {
      listType: 'map',
      mapKeys: ['name'],
    }),
    apps: s.array(
      s.object(
        { name: s.string(), version: s.string(), componentVersion: s.string() },
        { required: ['name', 'version'] },
      ),
    ),
  },
  { required: ['components'] },
);

const releaseSchema = s.object({
  apiVersion: s.string(),
  kind: s.string(),
  metadata: s.object({}),
  spec: releaseSpecSchema,
  status: s.object({ ready: s.boolean(), inUse: s.boolean() }),
});

export type ReleaseSpec = Static<typeof releaseSpecSchema>;
export interface Release extends KubeObject {
  spec: ReleaseSpec;
}

/** The release object's name for a KVMConfig's release label: "14.1.0" → "v14.1.0". */
export function releaseName(version: string): string {
  return version.startsWith('v') ? version : `v${version}`;
}

/** The version of a named component ("kubernetes", "etcd", "calico", "containerlinux"), or "". */
export function componentVersion(release: Release | undefined, name: string): string {
  return release?.spec.components.find((c) => c.name === name)?.version ?? '';
}

export function releaseCrd(): KubeObject {
  return customResourceDefinition({
    group: RELEASE_GROUP,
    version: RELEASE_VERSION,
    scope: 'Cluster',
    names: { kind: 'Release', plural: 'releases', singular: 'release' },
    printerColumns: [
      { name: 'Kubernetes', type: 'string', jsonPath: '.spec.components[?(@.name=="kubernetes")].version' },
      { name: 'State', type: 'string', jsonPath: '.spec.state' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    openAPIV3Schema: releaseSchema.json,
  });
}
