import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Labels } from '../../../../src/kvm/api/labels.ts';
import { specProblem } from '../../../../src/kvm/key.ts';
import {
  MAX_VERSIONS,
  deletingClusterStatus,
  nextClusterStatus,
  readyCondition,
  specProblemReason,
  workloadNodeView,
} from '../../../../src/kvm/handlers/cluster/status-compute.ts';
import type {
  ClusterStatus,
  ClusterStatusInput,
  WorkloadNodeView,
} from '../../../../src/kvm/handlers/cluster/status-compute.ts';
import { OPERATOR_VERSION, sampleKvmConfig } from '../../helpers.ts';

const T0 = '2024-01-01T00:00:00Z';
const NOW = '2024-01-01T01:00:00Z';

function node(name: string, opts: { upToDate?: boolean; ready?: boolean } = {}): WorkloadNodeView {
  const upToDate = opts.upToDate ?? true;
  const version = upToDate ? OPERATOR_VERSION : '3.14.0';
  return { name, version, labels: { [Labels.operatorVersion]: version }, upToDate, ready: opts.ready ?? true };
}

/** The status.nodes entry `node(name)` produces, with the given lastTransitionTime. */
function statusNode(name: string, at: string, upToDate = true): NonNullable<ClusterStatus['nodes']>[number] {
  const n = node(name, { upToDate });
  return { name, version: n.version, labels: n.labels, lastTransitionTime: at };
}

const cond = (type: 'Creating' | 'Created' | 'Updating' | 'Updated' | 'Deleting', at = T0) => ({
  type,
  status: 'True' as const,
  lastTransitionTime: at,
});
const ver = (semver: string, at = T0) => ({ semver, lastTransitionTime: at });
const three = [node('master-m1'), node('worker-w1'), node('worker-w2')];
const threeStored = ['master-m1', 'worker-w1', 'worker-w2'].map((n) => statusNode(n, T0));

describe('nextClusterStatus', () => {
  const cases: {
    name: string;
    current?: ClusterStatus;
    input: Partial<ClusterStatusInput>;
    want: ClusterStatus;
  }[] = [
    {
      name: 'empty status → Creating',
      input: { nodes: [] },
      want: { conditions: [cond('Creating', NOW)], nodes: [] },
    },
    {
      name: 'empty status with every node up: still Creating first (one transition per loop)',
      input: { nodes: three },
      want: {
        conditions: [cond('Creating', NOW)],
        nodes: ['master-m1', 'worker-w1', 'worker-w2'].map((n) => statusNode(n, NOW)),
      },
    },
    {
      name: 'Creating, a node missing → stays Creating',
      current: { conditions: [cond('Creating')] },
      input: { nodes: three.slice(0, 2) },
      want: {
        conditions: [cond('Creating')],
        nodes: threeStored.slice(0, 2).map((n) => ({ ...n, lastTransitionTime: NOW })),
      },
    },
    {
      name: 'Creating, a node on another operator version → stays Creating',
      current: { conditions: [cond('Creating')], nodes: threeStored },
      input: { nodes: [three[0], three[1], node('worker-w2', { upToDate: false })] },
      want: {
        conditions: [cond('Creating')],
        nodes: [threeStored[0], threeStored[1], statusNode('worker-w2', NOW, false)],
      },
    },
    {
      name: 'Creating, all nodes up to date → Created, version recorded',
      current: { conditions: [cond('Creating')], nodes: threeStored },
      input: { nodes: three },
      want: { conditions: [cond('Created', NOW)], nodes: threeStored, versions: [ver('14.1.0', NOW)] },
    },
    {
      name: 'Creating, workload API unreachable → unchanged, nodes kept',
      current: { conditions: [cond('Creating')], nodes: threeStored },
      input: { nodes: undefined },
      want: { conditions: [cond('Creating')], nodes: threeStored },
    },
    {
      name: 'Created at the desired version → nothing changes',
      current: { conditions: [cond('Created')], nodes: threeStored, versions: [ver('14.1.0')] },
      input: { nodes: three },
      want: { conditions: [cond('Created')], nodes: threeStored, versions: [ver('14.1.0')] },
    },
    {
      name: 'Created, desired version differs from the last one → Updating',
      current: { conditions: [cond('Created')], nodes: threeStored, versions: [ver('14.1.0')] },
      input: { nodes: three, desiredVersion: '14.2.0' },
      want: { conditions: [cond('Created'), cond('Updating', NOW)], nodes: threeStored, versions: [ver('14.1.0')] },
    },
    {
      name: 'Created, new version while the workload API is down → Updating all the same',
      current: { conditions: [cond('Created')], nodes: threeStored, versions: [ver('14.1.0')] },
      input: { nodes: undefined, desiredVersion: '14.2.0' },
      want: { conditions: [cond('Created'), cond('Updating', NOW)], nodes: threeStored, versions: [ver('14.1.0')] },
    },
    {
      name: 'Updating, nodes not yet replaced → stays Updating',
      current: { conditions: [cond('Created'), cond('Updating')], nodes: threeStored, versions: [ver('14.1.0')] },
      input: { nodes: [three[0], node('worker-w1', { upToDate: false }), three[2]], desiredVersion: '14.2.0' },
      want: {
        conditions: [cond('Created'), cond('Updating')],
        nodes: [threeStored[0], statusNode('worker-w1', NOW, false), threeStored[2]],
        versions: [ver('14.1.0')],
      },
    },
    {
      name: 'Updating, all nodes up to date → Updated, version appended',
      current: { conditions: [cond('Created'), cond('Updating')], nodes: threeStored, versions: [ver('14.1.0')] },
      input: { nodes: three, desiredVersion: '14.2.0' },
      want: {
        conditions: [cond('Created'), cond('Updated', NOW)],
        nodes: threeStored,
        versions: [ver('14.1.0'), ver('14.2.0', NOW)],
      },
    },
    {
      name: 'Updated, another version → Updating replaces Updated',
      current: { conditions: [cond('Created'), cond('Updated')], versions: [ver('14.1.0'), ver('14.2.0')] },
      input: { nodes: three, desiredVersion: '14.3.0' },
      want: {
        conditions: [cond('Created'), cond('Updating', NOW)],
        nodes: threeStored.map((n) => ({ ...n, lastTransitionTime: NOW })),
        versions: [ver('14.1.0'), ver('14.2.0')],
      },
    },
    {
      name: `versions keep the last ${MAX_VERSIONS}`,
      current: {
        conditions: [cond('Created'), cond('Updating')],
        nodes: threeStored,
        versions: ['1', '2', '3', '4', '5'].map((v) => ver(v)),
      },
      input: { nodes: three, desiredVersion: '6' },
      want: {
        conditions: [cond('Created'), cond('Updated', NOW)],
        nodes: threeStored,
        versions: [...['2', '3', '4', '5'].map((v) => ver(v)), ver('6', NOW)],
      },
    },
    {
      name: 'Created without versions (older status) → version recorded once converged',
      current: { conditions: [cond('Created')], nodes: threeStored },
      input: { nodes: three },
      want: { conditions: [cond('Created')], nodes: threeStored, versions: [ver('14.1.0', NOW)] },
    },
    {
      name: 'Deleting is left alone on the update path',
      current: { conditions: [cond('Created'), cond('Deleting')], nodes: threeStored },
      input: { nodes: three },
      want: { conditions: [cond('Created'), cond('Deleting')], nodes: threeStored },
    },
    {
      name: 'no nodes expected and none there → never Created',
      current: { conditions: [cond('Creating')] },
      input: { nodes: [], expectedNodes: 0 },
      want: { conditions: [cond('Creating')], nodes: [] },
    },
    {
      name: 'nodes are sorted by name; a relabelled node gets a new lastTransitionTime',
      current: { conditions: [cond('Creating')], nodes: threeStored },
      input: {
        nodes: [{ ...three[2], labels: { ...three[2].labels, extra: 'x' } }, three[1], three[0]],
      },
      want: {
        conditions: [cond('Created', NOW)],
        nodes: [
          threeStored[0],
          threeStored[1],
          { ...threeStored[2], labels: { ...threeStored[2].labels, extra: 'x' }, lastTransitionTime: NOW },
        ],
        versions: [ver('14.1.0', NOW)],
      },
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const input: ClusterStatusInput = {
        desiredVersion: '14.1.0',
        expectedNodes: 3,
        now: NOW,
        nodes: undefined,
        ...tc.input,
      };
      const before = structuredClone(tc.current);
      assert.deepEqual(nextClusterStatus(tc.current, input), tc.want);
      assert.deepEqual(tc.current, before, 'current is not modified');
    });
  }
});

describe('deletingClusterStatus', () => {
  it('appends Deleting after the other conditions, keeping them', () => {
    const got = deletingClusterStatus({ conditions: [cond('Created'), cond('Updated')], versions: [ver('1')] }, NOW);
    assert.deepEqual(got, {
      conditions: [cond('Created'), cond('Updated'), cond('Deleting', NOW)],
      versions: [ver('1')],
    });
  });
  it('works on an empty status', () => {
    assert.deepEqual(deletingClusterStatus(undefined, NOW), { conditions: [cond('Deleting', NOW)] });
  });
});

describe('readyCondition', () => {
  const base: ClusterStatusInput = { desiredVersion: '14.1.0', expectedNodes: 3, now: NOW, nodes: three };
  const cases: {
    name: string;
    cluster: ClusterStatus;
    input?: Partial<ClusterStatusInput>;
    status: string;
    reason: string;
  }[] = [
    {
      name: 'workload API unreachable → Unknown',
      cluster: { conditions: [cond('Created')] },
      input: { nodes: undefined },
      status: 'Unknown',
      reason: 'WorkloadClusterUnreachable',
    },
    { name: 'Creating → False', cluster: { conditions: [cond('Creating')] }, status: 'False', reason: 'Creating' },
    {
      name: 'Updating → False',
      cluster: { conditions: [cond('Created'), cond('Updating')] },
      status: 'False',
      reason: 'Updating',
    },
    {
      name: 'Created, all nodes Ready → True',
      cluster: { conditions: [cond('Created')] },
      status: 'True',
      reason: 'ClusterReady',
    },
    {
      name: 'Updated, all nodes Ready → True',
      cluster: { conditions: [cond('Created'), cond('Updated')] },
      status: 'True',
      reason: 'ClusterReady',
    },
    {
      name: 'Created, one node NotReady → False',
      cluster: { conditions: [cond('Created')] },
      input: { nodes: [three[0], three[1], node('worker-w2', { ready: false })] },
      status: 'False',
      reason: 'NodesNotReady',
    },
    {
      name: 'Created, a node missing → False',
      cluster: { conditions: [cond('Created')] },
      input: { nodes: three.slice(1) },
      status: 'False',
      reason: 'NodesNotReady',
    },
    { name: 'no lifecycle condition yet → False Creating', cluster: {}, status: 'False', reason: 'Creating' },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const got = readyCondition(tc.cluster, { ...base, ...tc.input });
      assert.equal(got.type, 'Ready');
      assert.equal(got.status, tc.status);
      assert.equal(got.reason, tc.reason);
    });
  }
});

describe('workloadNodeView', () => {
  const cases: { name: string; labels: Record<string, string>; ready?: string; upToDate: boolean; isReady: boolean }[] =
    [
      {
        name: 'operator version matches, no release label',
        labels: { [Labels.operatorVersion]: OPERATOR_VERSION },
        ready: 'True',
        upToDate: true,
        isReady: true,
      },
      {
        name: 'operator version differs',
        labels: { [Labels.operatorVersion]: '3.14.0' },
        ready: 'True',
        upToDate: false,
        isReady: true,
      },
      { name: 'no version label', labels: {}, upToDate: false, isReady: false },
      {
        name: 'release label matches',
        labels: { [Labels.operatorVersion]: OPERATOR_VERSION, [Labels.releaseVersion]: '14.1.0' },
        ready: 'False',
        upToDate: true,
        isReady: false,
      },
      {
        name: 'release label differs',
        labels: { [Labels.operatorVersion]: OPERATOR_VERSION, [Labels.releaseVersion]: '14.0.0' },
        ready: 'Unknown',
        upToDate: false,
        isReady: false,
      },
    ];
  for (const tc of cases) {
    it(tc.name, () => {
      const got = workloadNodeView(
        {
          metadata: { name: 'n1', labels: tc.labels },
          status: tc.ready ? { conditions: [{ type: 'Ready', status: tc.ready }] } : {},
        },
        OPERATOR_VERSION,
        '14.1.0',
      );
      assert.equal(got.upToDate, tc.upToDate);
      assert.equal(got.ready, tc.isReady);
      assert.equal(got.version, tc.labels[Labels.operatorVersion] ?? '');
      assert.deepEqual(got.labels, tc.labels);
    });
  }
});

describe('specProblemReason (pinned to the messages of specProblem)', () => {
  const cases: { name: string; mutate: (c: ReturnType<typeof sampleKvmConfig>) => void; want: string | undefined }[] = [
    { name: 'valid spec', mutate: () => {}, want: undefined },
    {
      name: 'fewer worker VMs than workers',
      mutate: (c) => void c.spec.kvm.workers?.pop(),
      want: 'ParallelListsMismatch',
    },
    {
      name: 'more master VMs than masters',
      mutate: (c) => void c.spec.kvm.masters?.push({ cpus: 1, memory: '1G' }),
      want: 'ParallelListsMismatch',
    },
    {
      name: 'a node ID twice',
      mutate: (c) => void (c.spec.cluster.workers = [{ id: 'w1' }, { id: 'w1' }]),
      want: 'DuplicateNodeID',
    },
    {
      name: 'a worker with a master ID',
      mutate: (c) => void (c.spec.cluster.workers = [{ id: 'm1' }, { id: 'w2' }]),
      want: 'DuplicateNodeID',
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const c = sampleKvmConfig();
      tc.mutate(c);
      const problem = specProblem(c);
      assert.equal(problem === undefined ? undefined : specProblemReason(problem), tc.want);
    });
  }
  it('anything else is InvalidSpec', () => assert.equal(specProblemReason('something new'), 'InvalidSpec'));
});
