// apimachinery's shared models: object and list metadata, selectors, Status, DeleteOptions, Patch
// and the scalar types (Time, Quantity, IntOrString) every kind refers to.
import {
  INT_OR_STRING,
  META,
  QUANTITY,
  bool,
  int32,
  int64,
  keyedList,
  list,
  object,
  oneOf,
  ref,
  str,
  stringMap,
  strings,
  type Schema,
} from './schema.ts';

const time = (description: string): Schema => ref(`${META}.Time`, description);

export const metaModels: Record<string, Schema> = {
  [`${META}.Time`]: {
    type: 'string',
    format: 'date-time',
    description: 'Time is a timestamp in RFC 3339 form, to the second, in UTC.',
  },
  [`${META}.MicroTime`]: {
    type: 'string',
    format: 'date-time',
    description: 'MicroTime is a timestamp in RFC 3339 form with exactly six fractional digits.',
  },
  [QUANTITY]: {
    type: 'string',
    description:
      'Quantity is a fixed-point number with an optional suffix: a binary SI suffix (Ki, Mi, Gi, Ti, Pi, Ei), a decimal SI suffix (n, u, m, "", k, M, G, T, P, E) or a decimal exponent (e3). Examples: 100m, 1.5, 64Mi.',
  },
  [INT_OR_STRING]: {
    type: 'string',
    format: 'int-or-string',
    description:
      'IntOrString holds either an integer or a string, such as a port number or a port name, or a count or a percentage.',
  },
  [`${META}.FieldsV1`]: {
    type: 'object',
    description:
      'FieldsV1 is the set of fields a manager owns, encoded as a trie of field, key, value and index entries.',
  },
  [`${META}.ObjectMeta`]: object(
    'ObjectMeta is the metadata every persisted resource has: identity, labels and annotations, ownership, and the fields the server maintains.',
    {
      name: str(
        'Name is unique within a namespace (or the cluster, for cluster-scoped kinds). Required on create unless generateName is set. Cannot be updated.',
      ),
      generateName: str(
        'GenerateName is a prefix the server completes with a random suffix to make a unique name, used when name is empty.',
      ),
      namespace: str('Namespace the object lives in. Empty for cluster-scoped kinds. Cannot be updated.'),
      selfLink: str('Deprecated; the server no longer sets it.'),
      uid: str('UID is the unique identifier the server gives the object on creation. Read-only.'),
      resourceVersion: str(
        'An opaque value that changes on every write; send it back in an update to detect conflicting writes. Read-only.',
      ),
      generation: int64('A sequence number for the desired state (spec) of the object. Read-only.'),
      creationTimestamp: time('When the object was created, in server time. Read-only.'),
      deletionTimestamp: time(
        'When the object will be deleted; set by the server when deletion is requested and finalizers or a grace period delay it. Read-only.',
      ),
      deletionGracePeriodSeconds: int64(
        'Seconds allowed for graceful termination before the object is removed. Read-only.',
      ),
      labels: stringMap('Map of string keys and values used to organize and select objects (label selectors).'),
      annotations: stringMap(
        'Map of string keys and values for arbitrary non-identifying metadata, read by tools and controllers.',
      ),
      ownerReferences: keyedList(
        ref(`${META}.OwnerReference`),
        'Objects this object depends on. When every owner is gone, the garbage collector deletes this object.',
        'uid',
      ),
      finalizers: {
        ...list(
          { type: 'string', default: '' },
          'Entries that must be removed before the object is deleted from storage.',
          'set',
        ),
        'x-kubernetes-patch-strategy': 'merge',
      },
      managedFields: list(
        ref(`${META}.ManagedFieldsEntry`),
        'Which manager owns which fields, for server-side apply. Maintained by the server.',
      ),
    },
  ),
  [`${META}.OwnerReference`]: {
    ...object(
      'OwnerReference identifies an owning object, which must be in the same namespace or cluster-scoped.',
      {
        apiVersion: str('API version of the owner.'),
        kind: str('Kind of the owner.'),
        name: str('Name of the owner.'),
        uid: str('UID of the owner.'),
        controller: bool('If true, this owner is the managing controller. At most one owner may be the controller.'),
        blockOwnerDeletion: bool('If true, foreground deletion of the owner waits until this object is gone.'),
      },
      ['apiVersion', 'kind', 'name', 'uid'],
    ),
    'x-kubernetes-map-type': 'atomic',
  },
  [`${META}.ManagedFieldsEntry`]: object(
    'ManagedFieldsEntry records the fields one manager owns through one kind of operation.',
    {
      manager: str('Name of the workflow managing these fields.'),
      operation: oneOf('Apply or Update.', ['Apply', 'Update']),
      apiVersion: str('API version the field set is expressed in.'),
      time: time('When the set last changed.'),
      fieldsType: str('Format of the field set: always FieldsV1.'),
      fieldsV1: ref(`${META}.FieldsV1`, 'The owned fields.'),
      subresource: str('Subresource the write went through, empty for the main resource.'),
    },
  ),
  [`${META}.ListMeta`]: object('ListMeta is the metadata of a list response.', {
    selfLink: str('Deprecated; the server no longer sets it.'),
    resourceVersion: str('The revision the list was read at; start a watch from it to receive later changes.'),
    continue: str('Opaque token to fetch the next page, when the list was limited.'),
    remainingItemCount: int64('Estimated number of items after this page.'),
  }),
  [`${META}.LabelSelector`]: {
    ...object(
      'A label query over a set of objects. The requirements are ANDed; an empty selector matches everything.',
      {
        matchLabels: stringMap('Labels that must all be present with these values.'),
        matchExpressions: list(ref(`${META}.LabelSelectorRequirement`), 'Set-based requirements.'),
      },
    ),
    'x-kubernetes-map-type': 'atomic',
  },
  [`${META}.LabelSelectorRequirement`]: object(
    'A selector requirement: a key, an operator and values.',
    {
      key: str('The label key.'),
      operator: oneOf('How the key relates to the values.', ['In', 'NotIn', 'Exists', 'DoesNotExist']),
      values: strings('Values for In and NotIn; empty for Exists and DoesNotExist.'),
    },
    ['key', 'operator'],
  ),
  [`${META}.Condition`]: object(
    'Condition is one aspect of the current state of an object.',
    {
      type: str('Type of condition, in CamelCase.'),
      status: oneOf('Status of the condition.', ['True', 'False', 'Unknown']),
      observedGeneration: int64('The metadata.generation the condition was set for.'),
      lastTransitionTime: time('When the condition last changed status.'),
      reason: str('Machine-readable CamelCase reason for the last transition.'),
      message: str('Human-readable details of the last transition.'),
    },
    ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  ),
  [`${META}.Status`]: object(
    'Status is the result of an operation that does not return an object, and the body of every error.',
    {
      kind: str('Status.'),
      apiVersion: str('v1.'),
      metadata: ref(`${META}.ListMeta`, 'Standard list metadata.'),
      status: oneOf('Success or Failure.', ['Success', 'Failure']),
      message: str('Human-readable description of the status.'),
      reason: str('Machine-readable reason: NotFound, AlreadyExists, Conflict, Invalid, ...'),
      details: ref(`${META}.StatusDetails`, 'Extended data about the reason.'),
      code: int32('HTTP status code.'),
    },
  ),
  [`${META}.StatusDetails`]: object('Details of a failure.', {
    name: str('Name of the object concerned.'),
    group: str('API group of the object concerned.'),
    kind: str('Kind (or resource) of the object concerned.'),
    uid: str('UID of the object concerned.'),
    causes: list(ref(`${META}.StatusCause`), 'The individual errors.'),
    retryAfterSeconds: int32('Seconds to wait before retrying.'),
  }),
  [`${META}.StatusCause`]: object('One cause of a failure.', {
    reason: str('Machine-readable cause, such as FieldValueInvalid.'),
    message: str('Human-readable description.'),
    field: str('The field at fault, such as spec.containers[0].name.'),
  }),
  [`${META}.Preconditions`]: object('Conditions a delete must satisfy.', {
    uid: str('The object must have this UID.'),
    resourceVersion: str('The object must be at this resourceVersion.'),
  }),
  [`${META}.DeleteOptions`]: object('Options of a delete request.', {
    kind: str('DeleteOptions.'),
    apiVersion: str('APIVersion of the options.'),
    gracePeriodSeconds: int64('Seconds before the object is deleted; 0 deletes at once.'),
    preconditions: ref(`${META}.Preconditions`, 'Must be met or the delete fails with a conflict.'),
    orphanDependents: bool('Deprecated; use propagationPolicy.'),
    propagationPolicy: oneOf('How dependents are garbage collected.', ['Orphan', 'Background', 'Foreground']),
    dryRun: strings('All: run the request without persisting anything.'),
    ignoreStoreReadErrorWithClusterBreakingPotential: bool('Delete objects that cannot be read from storage.'),
  }),
  [`${META}.Patch`]: {
    type: 'object',
    description:
      'A patch document: a JSON patch, a JSON merge patch, a strategic merge patch or an apply configuration.',
  },
};
