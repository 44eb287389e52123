// Table tests of the update throttle: which node deployment to roll now, if any.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment } from '../../../../src/kvm/handlers/cluster/deployment-types.ts';
import {
  deploymentToUpdate,
  isNodeUnschedulable,
  isRolledOut,
  pendingUpdates,
  updatedDeployment,
} from '../../../../src/kvm/handlers/cluster/update-throttle.ts';
import type { WorkloadNode } from '../../../../src/kvm/handlers/cluster/update-throttle.ts';

type Status = NonNullable<Deployment['status']>;
const READY: Status = {
  observedGeneration: 1,
  replicas: 1,
  updatedReplicas: 1,
  readyReplicas: 1,
  availableReplicas: 1,
};

interface DepOpts {
  release?: string;
  operator?: string;
  status?: Status | null;
  generation?: number;
  image?: string;
}

/** A node deployment named `<role>-<id>`, built for release `release` (default "1.0.0"). */
function dep(name: string, o: DepOpts = {}): Deployment {
  const role = name.split('-')[0];
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace: 'abc12',
      resourceVersion: '7',
      generation: o.generation ?? 1,
      labels: { app: role, node: name.split('-')[1] },
      annotations: {
        'giantswarm.io/release-version': o.release ?? '1.0.0',
        'giantswarm.io/version-bundle-version': o.operator ?? '3.15.0',
      },
    },
    spec: {
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: { app: role } },
      template: {
        metadata: { labels: {}, annotations: {} },
        spec: {
          hostNetwork: true,
          nodeSelector: { role },
          serviceAccountName: 'abc12',
          terminationGracePeriodSeconds: 300,
          affinity: {},
          volumes: [],
          containers: [{ name: 'k8s-kvm', image: o.image ?? 'k8s-kvm:1', imagePullPolicy: 'IfNotPresent' }],
        },
      },
    },
    ...(o.status === null ? {} : { status: o.status ?? READY }),
  };
}

function node(
  name: string,
  o: { role?: string; unschedulable?: boolean; taints?: WorkloadNode['spec'] } = {},
): WorkloadNode {
  return {
    metadata: { name, labels: { role: o.role ?? 'master' } },
    spec: { unschedulable: o.unschedulable, ...o.taints },
  };
}

const healthyMaster = node('m1', {
  taints: { taints: [{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }] },
});
const at = (release: string, names: string[]) => names.map((n) => dep(n, { release }));
const ALL = ['master-m1', 'worker-w1', 'worker-w2'];

describe('deploymentToUpdate', () => {
  const cases: {
    name: string;
    current: Deployment[];
    desired: Deployment[];
    nodes?: WorkloadNode[] | null;
    want: string | undefined;
    reason?: RegExp;
  }[] = [
    { name: 'nothing differs: no update', current: at('1.0.0', ALL), desired: at('1.0.0', ALL), want: undefined },
    {
      name: 'workload cluster unreachable: no update',
      current: at('1.0.0', ALL),
      desired: at('2.0.0', ALL),
      nodes: null,
      want: undefined,
      reason: /unavailable/,
    },
    {
      name: 'all ready, everything pending: the first by name (a master)',
      current: at('1.0.0', ALL),
      desired: at('2.0.0', ALL),
      want: 'master-m1',
    },
    {
      name: 'masters sort before workers whatever the list order',
      current: at('1.0.0', ['worker-a', 'master-z']),
      desired: at('2.0.0', ['worker-a', 'master-z']),
      want: 'master-z',
    },
    {
      name: 'one at a time: master done, first worker next',
      current: [dep('master-m1', { release: '2.0.0' }), ...at('1.0.0', ['worker-w2', 'worker-w1'])],
      desired: at('2.0.0', ALL),
      want: 'worker-w1',
    },
    {
      name: 'a deployment not ready: no update',
      current: [
        dep('master-m1', { release: '2.0.0', status: { ...READY, readyReplicas: 0, availableReplicas: 0 } }),
        ...at('1.0.0', ['worker-w1']),
      ],
      desired: at('2.0.0', ['master-m1', 'worker-w1']),
      want: undefined,
      reason: /master-m1 is not fully rolled out/,
    },
    {
      name: 'an already-updated deployment still rolling (generation not observed): no update',
      current: [dep('master-m1', { release: '2.0.0', generation: 2 }), ...at('1.0.0', ['worker-w1'])],
      desired: at('2.0.0', ['master-m1', 'worker-w1']),
      want: undefined,
    },
    {
      name: 'a fresh deployment without status: no update',
      current: [...at('1.0.0', ['master-m1']), dep('worker-w9', { release: '2.0.0', status: null })],
      desired: at('2.0.0', ['master-m1', 'worker-w9']),
      want: undefined,
    },
    {
      name: 'Recreate gap (every count 0): no update',
      current: [
        ...at('1.0.0', ['master-m1']),
        dep('worker-w1', { release: '2.0.0', status: { observedGeneration: 1 } }),
      ],
      desired: at('2.0.0', ['master-m1', 'worker-w1']),
      want: undefined,
    },
    {
      name: 'unavailable replica (ready but not available): no update',
      current: [...at('1.0.0', ['master-m1']), dep('worker-w1', { status: { ...READY, availableReplicas: 0 } })],
      desired: at('2.0.0', ['master-m1', 'worker-w1']),
      want: undefined,
    },
    {
      name: 'workers wait while a master is cordoned',
      current: [dep('master-m1', { release: '2.0.0' }), ...at('1.0.0', ['worker-w1'])],
      desired: at('2.0.0', ['master-m1', 'worker-w1']),
      nodes: [node('m1', { unschedulable: true })],
      want: undefined,
      reason: /workers wait/,
    },
    {
      name: 'a cordoned master does not hold back a master update',
      current: at('1.0.0', ['master-m1', 'worker-w1']),
      desired: at('2.0.0', ['master-m1', 'worker-w1']),
      nodes: [node('m1', { unschedulable: true })],
      want: 'master-m1',
    },
    {
      name: 'workers wait while a master has a foreign NoSchedule taint',
      current: [dep('master-m1', { release: '2.0.0' }), ...at('1.0.0', ['worker-w1'])],
      desired: at('2.0.0', ['master-m1', 'worker-w1']),
      nodes: [node('m1', { taints: { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] } })],
      want: undefined,
    },
    {
      name: 'workers wait while a master has a NoExecute taint',
      current: [dep('master-m1', { release: '2.0.0' }), ...at('1.0.0', ['worker-w1'])],
      desired: at('2.0.0', ['master-m1', 'worker-w1']),
      nodes: [node('m1', { taints: { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }] } })],
      want: undefined,
    },
    {
      name: "the master's own NoSchedule taint is allowed",
      current: [dep('master-m1', { release: '2.0.0' }), ...at('1.0.0', ['worker-w1'])],
      desired: at('2.0.0', ['master-m1', 'worker-w1']),
      nodes: [healthyMaster],
      want: 'worker-w1',
    },
    {
      name: 'a PreferNoSchedule taint on a master is allowed',
      current: [dep('master-m1', { release: '2.0.0' }), ...at('1.0.0', ['worker-w1'])],
      desired: at('2.0.0', ['master-m1', 'worker-w1']),
      nodes: [node('m1', { taints: { taints: [{ key: 'x', effect: 'PreferNoSchedule' }] } })],
      want: 'worker-w1',
    },
    {
      name: 'a cordoned worker node does not gate workers',
      current: [dep('master-m1', { release: '2.0.0' }), ...at('1.0.0', ['worker-w1'])],
      desired: at('2.0.0', ['master-m1', 'worker-w1']),
      nodes: [healthyMaster, node('w2', { role: 'worker', unschedulable: true })],
      want: 'worker-w1',
    },
    {
      name: 'only the operator version differs: update',
      current: at('1.0.0', ['master-m1']),
      desired: [dep('master-m1', { operator: '3.16.0' })],
      want: 'master-m1',
    },
    {
      name: 'pod-spec-only difference: no update',
      current: at('1.0.0', ['master-m1']),
      desired: [dep('master-m1', { image: 'k8s-kvm:2' })],
      want: undefined,
      reason: /every deployment is at the desired versions/,
    },
    {
      name: 'a deployment being scaled in is never updated',
      current: [...at('1.0.0', ['worker-w1']), dep('worker-w0', { release: '0.9.0' })],
      desired: at('1.0.0', ['worker-w1']),
      want: undefined,
    },
    {
      name: 'a deployment being scaled in and not ready holds back updates',
      current: [...at('1.0.0', ['master-m1']), dep('worker-w0', { status: { ...READY, readyReplicas: 0 } })],
      desired: at('2.0.0', ['master-m1']),
      want: undefined,
    },
    {
      name: 'a desired deployment not created yet does not block updates of the others',
      current: at('1.0.0', ['master-m1']),
      desired: at('2.0.0', ['master-m1', 'worker-w5']),
      want: 'master-m1',
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const got = deploymentToUpdate({
        current: tc.current,
        desired: tc.desired,
        workloadNodes: tc.nodes === null ? undefined : (tc.nodes ?? [healthyMaster]),
      });
      assert.equal(got.update?.metadata.name, tc.want, got.reason);
      if (tc.reason) assert.match(got.reason, tc.reason);
    });
  }
});

describe('updatedDeployment', () => {
  it('keeps the resourceVersion and foreign annotations, replaces spec and labels', () => {
    const current = dep('worker-w1');
    current.metadata.annotations = { ...current.metadata.annotations, 'deployment.kubernetes.io/revision': '3' };
    current.metadata.labels = { app: 'worker', stale: 'yes' };
    const desired = dep('worker-w1', { release: '2.0.0', image: 'k8s-kvm:2' });
    desired.metadata.resourceVersion = undefined;
    const got = updatedDeployment(current, desired);
    assert.equal(got.metadata.resourceVersion, '7');
    assert.deepEqual(got.metadata.labels, desired.metadata.labels);
    assert.equal(got.metadata.annotations?.['deployment.kubernetes.io/revision'], '3');
    assert.equal(got.metadata.annotations?.['giantswarm.io/release-version'], '2.0.0');
    assert.equal(got.spec.template.spec.containers[0].image, 'k8s-kvm:2');
    assert.equal(got.status, undefined);
  });
});

describe('isRolledOut', () => {
  const cases: { name: string; d: Deployment; want: boolean }[] = [
    { name: 'all counts 1, generation observed', d: dep('x-1'), want: true },
    { name: 'no status', d: dep('x-1', { status: null }), want: false },
    {
      name: 'generation ahead',
      d: dep('x-1', { generation: 3, status: { ...READY, observedGeneration: 2 } }),
      want: false,
    },
    { name: 'updated 0', d: dep('x-1', { status: { ...READY, updatedReplicas: 0 } }), want: false },
    { name: 'two replicas during a surge', d: dep('x-1', { status: { ...READY, replicas: 2 } }), want: false },
  ];
  for (const tc of cases) it(tc.name, () => assert.equal(isRolledOut(tc.d), tc.want));
});

describe('isNodeUnschedulable', () => {
  const cases: { name: string; n: WorkloadNode; want: boolean }[] = [
    { name: 'plain', n: node('a'), want: false },
    { name: 'cordoned', n: node('a', { unschedulable: true }), want: true },
    { name: 'master taint', n: healthyMaster, want: false },
    {
      name: 'NoSchedule other',
      n: node('a', { taints: { taints: [{ key: 'k', effect: 'NoSchedule' }] } }),
      want: true,
    },
    {
      name: 'NoExecute master key',
      n: node('a', { taints: { taints: [{ key: 'node-role.kubernetes.io/master', effect: 'NoExecute' }] } }),
      want: true,
    },
  ];
  for (const tc of cases) it(tc.name, () => assert.equal(isNodeUnschedulable(tc.n), tc.want));
});

describe('pendingUpdates', () => {
  it('lists version changes by name, ignoring removed and new nodes', () => {
    const current = [dep('worker-b'), dep('master-a'), dep('worker-gone')];
    const desired = [
      dep('worker-b', { release: '2' }),
      dep('master-a', { release: '2' }),
      dep('worker-new', { release: '2' }),
    ];
    assert.deepEqual(pendingUpdates(current, desired), ['master-a', 'worker-b']);
  });
});
