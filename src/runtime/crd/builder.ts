// Builds a CustomResourceDefinition from a schema made with the `s` DSL: one served and stored
// version with a status subresource and printer columns — the shape every CRD of this package has.
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
          storage: true,
          ...(def.statusSubresource === false ? {} : { subresources: { status: {} } }),
          ...(def.printerColumns?.length ? { additionalPrinterColumns: def.printerColumns } : {}),
          schema: { openAPIV3Schema: structuredClone(def.openAPIV3Schema) },
        },
      ],
    },
  };
}
