// The one shape every CRD of this package has: namespaced, one served and stored version with a
// status subresource, printer columns and a schema generated from the TypeScript type.
import type { KubeObject } from '../../runtime/index.ts';
import { GROUP, VERSION } from './peerpod.ts';

export interface CrdNames {
  kind: string;
  plural: string;
  singular: string;
  shortNames?: string[];
}

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
}

export function namespacedCrd(names: CrdNames, printerColumns: PrinterColumn[], openAPIV3Schema: unknown): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: {
        kind: names.kind,
        listKind: `${names.kind}List`,
        plural: names.plural,
        singular: names.singular,
        ...(names.shortNames ? { shortNames: names.shortNames } : {}),
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: printerColumns,
          schema: { openAPIV3Schema: structuredClone(openAPIV3Schema) },
        },
      ],
    },
  };
}
