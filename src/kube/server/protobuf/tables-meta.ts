// Field tables for apimachinery pkg/apis/meta/v1: object metadata, selectors and delete options.
// Field numbers are from the upstream generated.proto; see schema.ts for the notation.
import type { TableSource } from './schema.ts';

export const META: TableSource = {
  ObjectMeta: `
    1 name:s, 2 generateName:s, 3 namespace:s, 4 selfLink:s, 5 uid:s, 6 resourceVersion:s, 7 generation:i,
    8 creationTimestamp:Time, 9 deletionTimestamp:Time, 10 deletionGracePeriodSeconds:i!, 11 labels:{s},
    12 annotations:{s}, 13 ownerReferences:[OwnerReference], 14 finalizers:[s],
    17 managedFields:[ManagedFieldsEntry]`,
  OwnerReference: '1 kind:s!, 3 name:s!, 4 uid:s!, 5 apiVersion:s!, 6 controller:b!, 7 blockOwnerDeletion:b!',
  ManagedFieldsEntry: `
    1 manager:s, 2 operation:s, 3 apiVersion:s, 4 time:Time, 6 fieldsType:s, 7 fieldsV1:FieldsV1,
    8 subresource:s`,
  LabelSelector: '1 matchLabels:{s}, 2 matchExpressions:[LabelSelectorRequirement]',
  LabelSelectorRequirement: '1 key:s!, 2 operator:s!, 3 values:[s]',
  FieldSelectorRequirement: '1 key:s!, 2 operator:s!, 3 values:[s]',
  DeleteOptions: `
    1 gracePeriodSeconds:i!, 2 preconditions:Preconditions, 3 orphanDependents:b!, 4 propagationPolicy:s!,
    5 dryRun:[s], 6 ignoreStoreReadErrorWithClusterBreakingPotential:b!`,
  Preconditions: '1 uid:s!, 2 resourceVersion:s!',
};
