// CRDs shared by the CRD tests: a small valid one, and builders to break it one way at a time.
import type { JsonObject } from '../../../src/apimachinery/meta/index.ts';

export function widgetCrd(schema?: JsonObject, extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: schema ?? {
              type: 'object',
              properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
            },
          },
          ...extra,
        },
      ],
    },
  };
}

/** A root schema with `spec` holding the given properties. */
export function specSchema(properties: JsonObject, specExtra: JsonObject = {}): JsonObject {
  return { type: 'object', properties: { spec: { type: 'object', properties, ...specExtra } } };
}

export function versions(crd: JsonObject): JsonObject[] {
  return (crd.spec as JsonObject).versions as JsonObject[];
}

/** `field: message` lines, the way kube prints causes in a Status message. */
export function lines(errors: { field: string; message: string }[]): string[] {
  return errors.map((e) => `${e.field}: ${e.message}`);
}
