// The PodSet API: examples.peerpods.io/v1alpha1, a namespaced kind that keeps `spec.replicas` pods
// from `spec.template` running, like a minimal ReplicaSet.
import { customResource, CustomResourceDefinitions, isNotFound } from '../../src/runtime/index.ts';
import type { Condition, KubeClient, KubeObject } from '../../src/runtime/index.ts';

export const GROUP = 'examples.peerpods.io';
export const VERSION = 'v1alpha1';
export const PodSets = customResource(GROUP, VERSION, 'PodSet', 'podsets', true);

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
}

export interface PodSet extends KubeObject {
  spec: { replicas: number; template: PodTemplate };
  status?: { replicas?: number; observedGeneration?: number; conditions?: Condition[] };
}

/** The CRD, with a structural schema and the status subresource (so spec and status are written separately). */
export const podSetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `podsets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'podsets', singular: 'podset', kind: 'PodSet', listKind: 'PodSetList', shortNames: ['ps'] },
    versions: [
      {
        name: VERSION,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Current', type: 'integer', jsonPath: '.status.replicas' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['replicas', 'template'],
                properties: {
                  replicas: { type: 'integer', minimum: 0, maximum: 100 },
                  template: {
                    type: 'object',
                    required: ['spec'],
                    properties: {
                      metadata: {
                        type: 'object',
                        properties: {
                          labels: { type: 'object', additionalProperties: { type: 'string' } },
                          annotations: { type: 'object', additionalProperties: { type: 'string' } },
                        },
                      },
                      spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                    },
                  },
                },
              },
              status: {
                type: 'object',
                properties: {
                  replicas: { type: 'integer' },
                  observedGeneration: { type: 'integer' },
                  conditions: {
                    type: 'array',
                    items: {
                      type: 'object',
                      required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
                      properties: {
                        type: { type: 'string' },
                        status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
                        observedGeneration: { type: 'integer' },
                        lastTransitionTime: { type: 'string', format: 'date-time' },
                        reason: { type: 'string' },
                        message: { type: 'string' },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};

/** Creates (or keeps) the CRD and waits until PodSets can be listed. */
export async function installCrd(client: KubeClient, timeoutMs = 30_000): Promise<void> {
  try {
    await client.create(CustomResourceDefinitions, podSetCrd);
  } catch (err) {
    if ((err as { reason?: string }).reason !== 'AlreadyExists') throw err;
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await client.list(PodSets, { namespace: 'default', limit: 1 });
      return;
    } catch (err) {
      if (!isNotFound(err) || Date.now() > deadline) throw err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
