// coordination.k8s.io/v1 Lease, in its Go field order (k8s.io/api/coordination/v1/types.go). Open,
// as the field list is kept to what leader election and node heartbeats use.
import { META, int32, objectMetaRef, openObject, ref, str, typeMeta, type Schema } from './schema.ts';

export const coordinationModels: Record<string, Schema> = {
  'io.k8s.api.coordination.v1.Lease': openObject(
    'Lease is a lease: a holder identity and renewal times, used for leader election and node heartbeats.',
    {
      ...typeMeta('Lease'),
      metadata: objectMetaRef(),
      spec: openObject('Specification of the Lease.', {
        holderIdentity: str('Identity of the holder of the lease.'),
        leaseDurationSeconds: int32('Seconds candidates wait after the last renewal before taking the lease.'),
        acquireTime: ref(`${META}.MicroTime`, 'When the current lease was acquired.'),
        renewTime: ref(`${META}.MicroTime`, 'When the holder last renewed the lease.'),
        leaseTransitions: int32('Number of transitions of the lease between holders.'),
        strategy: str('How candidates are picked for coordinated leader election.'),
        preferredHolder: str('The holder the coordinated leader election would prefer.'),
      }),
    },
  ),
};
