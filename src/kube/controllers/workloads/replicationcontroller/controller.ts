// The ReplicationController controller: kube's ReplicationManager is the ReplicaSet controller run
// over core/v1 ReplicationControllers (pkg/controller/replication), and so is this one. The only
// differences are the resource, the owner references' apiVersion `v1`, the event source and the
// selector: an equality-based map, read as a LabelSelector with those matchLabels.
import { isObject } from '../../../../apimachinery/json/index.ts';
import type { Storage } from '../../../storage/storage.ts';
import type { ResourceCatalog } from '../../../registry/catalog.ts';
import type { ObjectStore } from '../../../registry/store/index.ts';
import { ReplicaSetController, type ReplicatedKind } from '../replicaset/controller.ts';

export const REPLICATION_CONTROLLER: ReplicatedKind = {
  component: 'replication-controller',
  group: '',
  version: 'v1',
  resource: 'replicationcontrollers',
  kind: 'ReplicationController',
  // An empty or missing map selects nothing here (validation refuses it anyway).
  labelSelector: (spec) =>
    isObject(spec.selector) && Object.keys(spec.selector).length > 0 ? { matchLabels: spec.selector } : undefined,
};

export class ReplicationManager extends ReplicaSetController {
  constructor(storage: Storage, store: ObjectStore, catalog: ResourceCatalog) {
    super(storage, store, catalog, REPLICATION_CONTROLLER);
  }
}
