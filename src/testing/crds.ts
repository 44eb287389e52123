// Installing CRDs for a test: the runtime's installCrds applies each and waits for Established;
// "served" is then checked the way a test would notice it, by listing every served version, so
// the first write of a custom resource after installCRDs never meets a 404.
import { customResource, installCrds, type KubeClient, type KubeObject, type ResourceType } from '../runtime/index.ts';
import { readManifests, type ManifestSource } from './manifests.ts';
import { waitFor } from './wait.ts';

interface CrdSpec {
  group: string;
  names: { kind: string; plural: string };
  scope: 'Namespaced' | 'Cluster';
  versions: Array<{ name: string; served: boolean }>;
}

/** Every served version of the CRD, as a resource type the client can list. */
export function servedResources(crd: KubeObject): ResourceType[] {
  const spec = crd.spec as CrdSpec;
  return spec.versions
    .filter((v) => v.served)
    .map((v) => customResource(spec.group, v.name, spec.names.kind, spec.names.plural, spec.scope === 'Namespaced'));
}

export async function installCustomResourceDefinitions(
  client: KubeClient,
  sources: readonly ManifestSource[],
  opts: { fieldManager: string; timeoutMs: number },
): Promise<KubeObject[]> {
  const crds = readManifests(sources, ['CustomResourceDefinition']);
  if (crds.length === 0 && sources.length > 0)
    throw new Error('installCRDs: no CustomResourceDefinition in the sources');
  await installCrds(client, crds, opts);
  for (const crd of crds) {
    for (const type of servedResources(crd)) {
      await waitFor(() => client.list(type, { limit: 1 }).then(() => true), {
        what: `${type.plural}.${type.group}/${type.version} to be served`,
        timeoutMs: opts.timeoutMs,
      });
    }
  }
  return crds;
}
