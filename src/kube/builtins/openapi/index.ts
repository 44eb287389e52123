// The hand-written models of built-in kinds, and a permissive model for built-in kinds that have
// none (apiVersion, kind and metadata described; every other field allowed).
import {
  CORE,
  META,
  POLICY,
  builtinModelName,
  objectMetaRef,
  openObject,
  ref,
  typeMeta,
  type Schema,
} from './schema.ts';
import { containerModels } from './container.ts';
import { apiextensionsModels } from './apiextensions.ts';
import { coordinationModels } from './coordination.ts';
import { coreModels } from './core.ts';
import { metaModels } from './meta.ts';
import { podModels } from './pod.ts';
import { workloadModels } from './workloads.ts';
import { batchModels } from './batch.ts';

export const BUILTIN_MODELS: ReadonlyMap<string, Schema> = new Map(
  Object.entries({
    ...metaModels,
    ...containerModels,
    ...podModels,
    ...coreModels,
    ...workloadModels,
    ...batchModels,
    ...coordinationModels,
    ...apiextensionsModels,
    [`${CORE}.Binding`]: openObject('Binding ties a pod to a node; posted by schedulers to pods/binding.', {
      ...typeMeta('Binding'),
      metadata: objectMetaRef(),
      target: ref(`${CORE}.ObjectReference`, 'The node to bind to.'),
    }),
    [`${POLICY}.Eviction`]: openObject(
      'Eviction evicts a pod from its node subject to its disruption budget; posted to pods/eviction.',
      {
        ...typeMeta('Eviction'),
        metadata: objectMetaRef(),
        deleteOptions: ref(`${META}.DeleteOptions`, 'DeleteOptions may be provided.'),
      },
    ),
  }),
);

/** One-line descriptions of the kinds that only get a permissive model. */
const KIND_DOCS: Record<string, string> = {
  Endpoints: 'Endpoints is the set of addresses and ports that implement a service.',
  PersistentVolume: 'PersistentVolume is a piece of storage provisioned by an administrator or a storage class.',
  ResourceQuota: 'ResourceQuota sets aggregate quota restrictions enforced per namespace.',
  LimitRange: 'LimitRange sets resource usage limits for each kind of resource in a namespace.',
  ControllerRevision: 'ControllerRevision is an immutable snapshot of state data, used by controllers for rollbacks.',
  MutatingWebhookConfiguration: 'MutatingWebhookConfiguration lists admission webhooks that may change objects.',
  ValidatingWebhookConfiguration:
    'ValidatingWebhookConfiguration lists admission webhooks that accept or reject objects.',
  Role: 'Role is a namespaced set of permission rules.',
  RoleBinding: 'RoleBinding grants the permissions of a Role or ClusterRole within a namespace.',
  ClusterRole: 'ClusterRole is a cluster-wide set of permission rules.',
  ClusterRoleBinding: 'ClusterRoleBinding grants the permissions of a ClusterRole cluster-wide.',
  Ingress: 'Ingress routes external HTTP(S) traffic to services.',
  NetworkPolicy: 'NetworkPolicy describes the network traffic allowed to and from a set of pods.',
  RuntimeClass: 'RuntimeClass selects the container runtime configuration pods run with.',
  EndpointSlice: 'EndpointSlice represents a subset of the endpoints that implement a service.',
  PodDisruptionBudget:
    'PodDisruptionBudget limits how many pods of a collection may be down at once through voluntary disruptions.',
  PriorityClass: 'PriorityClass maps a class name to a pod priority value.',
  HorizontalPodAutoscaler:
    'HorizontalPodAutoscaler scales a workload between minReplicas and maxReplicas through its scale subresource.',
  APIService: 'APIService represents a server for a particular GroupVersion.',
};

export function builtinModel(group: string, version: string, kind: string): { name: string; schema: Schema } {
  const name = builtinModelName(group, version, kind);
  const schema = BUILTIN_MODELS.get(name);
  if (schema) return { name, schema };
  const apiVersion = group ? `${group}/${version}` : version;
  const doc = KIND_DOCS[kind] ?? `${kind} is a ${apiVersion} resource.`;
  return {
    name,
    schema: openObject(`${doc} This server describes only its standard fields; others are not checked.`, {
      ...typeMeta(kind),
      metadata: objectMetaRef(),
    }),
  };
}

/** The model of a kind's list type, e.g. ConfigMapList. */
export function listModel(itemModel: string, listKind: string): Schema {
  return {
    type: 'object',
    description: `${listKind} is a list of objects.`,
    properties: {
      ...typeMeta(listKind),
      metadata: ref(`${META}.ListMeta`, 'Standard list metadata.'),
      items: { type: 'array', description: 'The objects.', items: ref(itemModel) },
    },
    required: ['items'],
  };
}
