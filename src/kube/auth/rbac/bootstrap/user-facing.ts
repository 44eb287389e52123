// The user-facing ClusterRoles: cluster-admin, and admin/edit/view assembled by aggregation from
// system:aggregate-to-{admin,edit,view}. Rules as a v1.33 cluster stores them
// (kubernetes/kubernetes:plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata/cluster-roles.yaml).
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import { clusterRole, rule } from './objects.ts';

export const AGGREGATE_TO_ADMIN = 'rbac.authorization.k8s.io/aggregate-to-admin';
export const AGGREGATE_TO_EDIT = 'rbac.authorization.k8s.io/aggregate-to-edit';
export const AGGREGATE_TO_VIEW = 'rbac.authorization.k8s.io/aggregate-to-view';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const READ_WRITE = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function userFacingClusterRoles(): JsonObject[] {
  return [
    clusterRole({
      name: 'cluster-admin',
      rules: [rule(['*'], ['*'], ['*']), { nonResourceURLs: ['*'], verbs: ['*'] }],
    }),
    clusterRole({ name: 'admin', aggregateFrom: [{ [AGGREGATE_TO_ADMIN]: 'true' }] }),
    clusterRole({
      name: 'edit',
      labels: { [AGGREGATE_TO_ADMIN]: 'true' },
      aggregateFrom: [{ [AGGREGATE_TO_EDIT]: 'true' }],
    }),
    clusterRole({
      name: 'view',
      labels: { [AGGREGATE_TO_EDIT]: 'true' },
      aggregateFrom: [{ [AGGREGATE_TO_VIEW]: 'true' }],
    }),
    clusterRole({
      name: 'system:aggregate-to-admin',
      labels: { [AGGREGATE_TO_ADMIN]: 'true' },
      rules: [
        rule(['authorization.k8s.io'], ['localsubjectaccessreviews'], ['create']),
        rule(['rbac.authorization.k8s.io'], ['rolebindings', 'roles'], READ_WRITE),
      ],
    }),
    clusterRole({
      name: 'system:aggregate-to-edit',
      labels: { [AGGREGATE_TO_EDIT]: 'true' },
      rules: [
        // Read access to the resources that can escalate (secrets, exec, proxies) is edit's, not view's.
        rule([''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy'], READ),
        rule([''], ['serviceaccounts'], ['impersonate']),
        rule([''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy'], WRITE),
        rule([''], ['pods/eviction'], ['create']),
        rule(
          [''],
          [
            'configmaps',
            'events',
            'persistentvolumeclaims',
            'replicationcontrollers',
            'replicationcontrollers/scale',
            'secrets',
            'serviceaccounts',
            'services',
            'services/proxy',
          ],
          WRITE,
        ),
        rule([''], ['serviceaccounts/token'], ['create']),
        rule(
          ['apps'],
          [
            'daemonsets',
            'deployments',
            'deployments/rollback',
            'deployments/scale',
            'replicasets',
            'replicasets/scale',
            'statefulsets',
            'statefulsets/scale',
          ],
          WRITE,
        ),
        rule(['autoscaling'], ['horizontalpodautoscalers'], WRITE),
        rule(['batch'], ['cronjobs', 'jobs'], WRITE),
        rule(
          ['extensions'],
          [
            'daemonsets',
            'deployments',
            'deployments/rollback',
            'deployments/scale',
            'ingresses',
            'networkpolicies',
            'replicasets',
            'replicasets/scale',
            'replicationcontrollers/scale',
          ],
          WRITE,
        ),
        rule(['policy'], ['poddisruptionbudgets'], WRITE),
        rule(['networking.k8s.io'], ['ingresses', 'networkpolicies'], WRITE),
        rule(['coordination.k8s.io'], ['leases'], READ_WRITE),
      ],
    }),
    clusterRole({
      name: 'system:aggregate-to-view',
      labels: { [AGGREGATE_TO_VIEW]: 'true' },
      rules: [
        rule(
          [''],
          [
            'configmaps',
            'endpoints',
            'persistentvolumeclaims',
            'persistentvolumeclaims/status',
            'pods',
            'replicationcontrollers',
            'replicationcontrollers/scale',
            'serviceaccounts',
            'services',
            'services/status',
          ],
          READ,
        ),
        rule(
          [''],
          [
            'bindings',
            'events',
            'limitranges',
            'namespaces/status',
            'pods/log',
            'pods/status',
            'replicationcontrollers/status',
            'resourcequotas',
            'resourcequotas/status',
          ],
          READ,
        ),
        // Read access to namespaces at namespace scope: this namespace only.
        rule([''], ['namespaces'], READ),
        rule(['discovery.k8s.io'], ['endpointslices'], READ),
        rule(
          ['apps'],
          [
            'controllerrevisions',
            'daemonsets',
            'daemonsets/status',
            'deployments',
            'deployments/scale',
            'deployments/status',
            'replicasets',
            'replicasets/scale',
            'replicasets/status',
            'statefulsets',
            'statefulsets/scale',
            'statefulsets/status',
          ],
          READ,
        ),
        rule(['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status'], READ),
        rule(['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status'], READ),
        rule(
          ['extensions'],
          [
            'daemonsets',
            'daemonsets/status',
            'deployments',
            'deployments/scale',
            'deployments/status',
            'ingresses',
            'ingresses/status',
            'networkpolicies',
            'replicasets',
            'replicasets/scale',
            'replicasets/status',
            'replicationcontrollers/scale',
          ],
          READ,
        ),
        rule(['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status'], READ),
        rule(['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies'], READ),
      ],
    }),
  ];
}
