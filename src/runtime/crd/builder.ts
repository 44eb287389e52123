// Builds a CustomResourceDefinition from a schema made with the `s` DSL: one served version with a
// status subresource and printer columns — the shape every CRD of this package has. A kind with
// several versions is one definition per version, merged into one CRD by mergeCrdVersions.
import type { KubeObject } from '../client/types.ts';

export interface CrdNames {
  kind: string;
  plural: string;
  singular: string;
  shortNames?: string[];
  categories?: string[];
}

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

export interface CrdDefinition {
  group: string;
  version: string;
  scope: 'Namespaced' | 'Cluster';
  names: CrdNames;
  printerColumns?: PrinterColumn[];
  openAPIV3Schema: unknown;
  /** Default true: a `/status` subresource, so spec writers cannot clobber status. */
  statusSubresource?: boolean;
  /**
   * Whether objects are stored in this version (kubebuilder's `+kubebuilder:storageversion`).
   * Default true; of a kind's versions exactly one is the storage version.
   */
  storage?: boolean;
}

export function customResourceDefinition(def: CrdDefinition): KubeObject {
  const { names } = def;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${def.group}` },
    spec: {
      group: def.group,
      scope: def.scope,
      names: {
        kind: names.kind,
        listKind: `${names.kind}List`,
        plural: names.plural,
        singular: names.singular,
        ...(names.shortNames ? { shortNames: names.shortNames } : {}),
        ...(names.categories ? { categories: names.categories } : {}),
      },
      versions: [
        {
          name: def.version,
          served: true,
          storage: def.storage ?? true,
          ...(def.statusSubresource === false ? {} : { subresources: { status: {} } }),
          ...(def.printerColumns?.length ? { additionalPrinterColumns: def.printerColumns } : {}),
          schema: { openAPIV3Schema: structuredClone(def.openAPIV3Schema) },
        },
      ],
    },
  };
}

interface CrdSpec {
  versions: Array<{ name: string; storage?: boolean }>;
}

/**
 * One CRD per name: the definitions of a kind's versions (same name, one version each) merged into
 * one, versions sorted by name. Exactly one version of each must be the storage version.
 */
export function mergeCrdVersions(crds: readonly KubeObject[]): KubeObject[] {
  const byName = new Map<string, KubeObject & { spec: CrdSpec }>();
  for (const crd of crds as ReadonlyArray<KubeObject & { spec: CrdSpec }>) {
    const name = String(crd.metadata.name);
    const have = byName.get(name);
    if (!have) {
      byName.set(name, structuredClone(crd));
      continue;
    }
    for (const v of crd.spec.versions) {
      if (have.spec.versions.some((x) => x.name === v.name))
        throw new Error(`CRD ${name} defines version ${v.name} twice`);
      have.spec.versions.push(structuredClone(v));
    }
  }
  for (const [name, crd] of byName) {
    const stored = crd.spec.versions.filter((v) => v.storage).map((v) => v.name);
    if (stored.length !== 1) {
      throw new Error(
        `CRD ${name} needs exactly one storage version, has ${stored.length ? stored.join(', ') : 'none'}: set storage: false on the others`,
      );
    }
    crd.spec.versions.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  return [...byName.values()];
}
