// The tiny CRD of the runtime benchmark: bench.peerpods.io/v1 Widget, with a status subresource.
import type { ControlPlane } from '../src/kube/index.ts';
import { internalContext } from '../src/kube/registry/context.ts';
import { resourceDef, ensureNamespace } from './seed.ts';
import { sleep } from './common.ts';

export const GROUP = 'bench.peerpods.io';
export const VERSION = 'v1';
export const PLURAL = 'widgets';
export const KIND = 'Widget';

export const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${PLURAL}.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: PLURAL, singular: 'widget', kind: KIND, listKind: `${KIND}List` },
    versions: [
      {
        name: VERSION,
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } },
              status: {
                type: 'object',
                properties: { reconciled: { type: 'boolean' }, observedGeneration: { type: 'integer' } },
              },
            },
          },
        },
      },
    ],
  },
};

/** Installs the CRD through the store and waits until the resource is served. */
export async function installWidgetCrd(cp: ControlPlane): Promise<void> {
  const crdDef = resourceDef(cp, 'apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
  await cp.internals.store.create(crdDef, undefined, structuredClone(widgetCrd), internalContext('bench'));
  for (let i = 0; i < 300 && !cp.internals.catalog.lookup(GROUP, VERSION, PLURAL); i++) await sleep(20);
  if (!cp.internals.catalog.lookup(GROUP, VERSION, PLURAL)) throw new Error('widgets CRD not served');
}

export async function seedWidgets(cp: ControlPlane, namespace: string, count: number): Promise<void> {
  await ensureNamespace(cp, namespace);
  const def = resourceDef(cp, GROUP, VERSION, PLURAL);
  for (let i = 0; i < count; i++) {
    await cp.internals.store.create(
      def,
      namespace,
      {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: KIND,
        metadata: { name: `w-${i}`, namespace },
        spec: { size: i % 7, color: 'blue' },
      },
      internalContext('bench'),
    );
  }
}
