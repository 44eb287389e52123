// The DaemonSet controller's decisions as pure functions: node eligibility and the daemon
// tolerations (kube's pkg/controller/daemon/daemon_controller.go NodeShouldRunDaemonPod,
// util/daemonset_util.go AddOrUpdateDaemonPodTolerations, GetTargetNodeName) and the rolling
// update plan (update.go rollingUpdate, util.SurgeCount/UnavailableCount).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { parseObject, type WorkloadObject } from '../../../../src/kube/controllers/workloads/common.ts';
import {
  nodeShouldRunDaemonPod,
  targetNodeName,
  withDaemonTolerations,
  type DaemonNode,
} from '../../../../src/kube/controllers/workloads/daemonset/eligibility.ts';
import { newDaemonPod } from '../../../../src/kube/controllers/workloads/daemonset/pods.ts';
import {
  planRollingUpdate,
  surgeAndUnavailable,
} from '../../../../src/kube/controllers/workloads/daemonset/rolling-update.ts';

function ds(podSpec: JsonObject = {}, spec: JsonObject = {}): WorkloadObject {
  return parseObject(
    JSON.stringify({
      metadata: {
        name: 'agent',
        namespace: 'default',
        uid: 'ds-uid',
        annotations: { 'deprecated.daemonset.template.generation': '4' },
      },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c' }], ...podSpec } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
        ...spec,
      },
    }),
  )!;
}

const node = (name: string, extra: Partial<DaemonNode> = {}): DaemonNode => ({
  name,
  labels: {},
  taints: [],
  ...extra,
});

describe('daemonset eligibility', () => {
  test('nodeName, nodeSelector and required node affinity must fit', () => {
    assert.deepEqual(nodeShouldRunDaemonPod(ds(), node('a')), { shouldRun: true, shouldContinueRunning: true });
    assert.equal(nodeShouldRunDaemonPod(ds({ nodeName: 'b' }), node('a')).shouldRun, false);
    assert.equal(nodeShouldRunDaemonPod(ds({ nodeName: 'a' }), node('a')).shouldRun, true);
    const sel = ds({ nodeSelector: { role: 'edge' } });
    assert.deepEqual(nodeShouldRunDaemonPod(sel, node('a')), { shouldRun: false, shouldContinueRunning: false });
    assert.equal(nodeShouldRunDaemonPod(sel, node('a', { labels: { role: 'edge' } })).shouldRun, true);
    const aff = ds({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1'] }] }],
          },
        },
      },
    });
    assert.equal(nodeShouldRunDaemonPod(aff, node('a', { labels: { zone: 'z2' } })).shouldRun, false);
    assert.equal(nodeShouldRunDaemonPod(aff, node('a', { labels: { zone: 'z1' } })).shouldRun, true);
  });

  test('NoSchedule stops new pods only; NoExecute also removes existing ones; daemon tolerations apply', () => {
    const noSchedule = node('a', { taints: [{ key: 'k', effect: 'NoSchedule' }] });
    assert.deepEqual(nodeShouldRunDaemonPod(ds(), noSchedule), { shouldRun: false, shouldContinueRunning: true });
    const noExecute = node('a', { taints: [{ key: 'k', effect: 'NoExecute' }] });
    assert.deepEqual(nodeShouldRunDaemonPod(ds(), noExecute), { shouldRun: false, shouldContinueRunning: false });
    const tolerated = ds({ tolerations: [{ key: 'k', operator: 'Exists' }] });
    assert.equal(nodeShouldRunDaemonPod(tolerated, noExecute).shouldRun, true);
    // Condition taints every daemon pod tolerates.
    for (const [key, effect] of [
      ['node.kubernetes.io/not-ready', 'NoExecute'],
      ['node.kubernetes.io/unreachable', 'NoExecute'],
      ['node.kubernetes.io/unschedulable', 'NoSchedule'],
      ['node.kubernetes.io/memory-pressure', 'NoSchedule'],
    ])
      assert.equal(nodeShouldRunDaemonPod(ds(), node('a', { taints: [{ key, effect }] })).shouldRun, true, key);
    const network = node('a', { taints: [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }] });
    assert.equal(nodeShouldRunDaemonPod(ds(), network).shouldRun, false);
    assert.equal(nodeShouldRunDaemonPod(ds({ hostNetwork: true }), network).shouldRun, true);
  });

  test('AddOrUpdateTolerationInPodSpec replaces a matching toleration, keeps the others', () => {
    const spec = withDaemonTolerations({
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 },
        { key: 'mine', operator: 'Exists' },
      ],
    });
    const t = spec.tolerations as JsonObject[];
    assert.deepEqual(t[0], { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' });
    assert.deepEqual(t[1], { key: 'mine', operator: 'Exists' });
    assert.equal(t.length, 7);
  });

  test('the created pod targets its node by affinity, replacing required terms; GetTargetNodeName reads it', () => {
    const d = ds({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1'] }] }],
          },
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [] } }],
        },
      },
    });
    const pod = newDaemonPod(d, 'node-7', 'h4sh');
    const meta = pod.metadata as JsonObject;
    assert.equal(meta.generateName, 'agent-');
    assert.deepEqual(meta.labels, { app: 'agent', 'pod-template-generation': '4', 'controller-revision-hash': 'h4sh' });
    const spec = pod.spec as JsonObject;
    assert.equal(spec.nodeName, undefined);
    const nodeAffinity = (spec.affinity as JsonObject).nodeAffinity as JsonObject;
    assert.deepEqual(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution, {
      nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-7'] }] }],
    });
    assert.ok(nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution);
    const parsed = parseObject(JSON.stringify({ ...pod, metadata: { ...meta, name: 'p', uid: 'u' } }))!;
    assert.equal(targetNodeName(parsed), 'node-7');
    parsed.spec.nodeName = 'node-8';
    assert.equal(targetNodeName(parsed), 'node-8');
  });
});

describe('daemonset rolling update plan', () => {
  let n = 0;
  function pod(hash: string, ready: boolean): WorkloadObject {
    n++;
    return parseObject(
      JSON.stringify({
        metadata: { name: `p${n}`, uid: `u${n}`, labels: { 'controller-revision-hash': hash } },
        spec: {},
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
      }),
    )!;
  }

  test('percentages round up; both 0 means one unavailable', () => {
    const d = ds(
      {},
      { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%', maxSurge: 0 } } },
    );
    assert.deepEqual(surgeAndUnavailable(d, 15), { maxSurge: 0, maxUnavailable: 2 });
    const zero = ds(
      {},
      { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } },
    );
    const old = new Map([
      ['a', [pod('old', true)]],
      ['b', [pod('old', true)]],
    ]);
    const plan = planRollingUpdate({
      ds: zero,
      nodeToDaemonPods: old,
      shouldRun: () => true,
      desiredNumberScheduled: 2,
      hash: 'new',
      generation: undefined,
      now: Date.now(),
    });
    assert.equal(plan.podsToDelete.length, 1);
  });

  test('maxSurge 0: unavailable old pods go at once, available ones within maxUnavailable', () => {
    const unavailableOld = pod('old', false);
    const nodes = new Map([
      ['a', [pod('new', false)]],
      ['b', [unavailableOld]],
      ['c', [pod('old', true)]],
    ]);
    const input = {
      ds: ds(),
      nodeToDaemonPods: nodes,
      shouldRun: () => true,
      desiredNumberScheduled: 3,
      hash: 'new',
      generation: undefined,
      now: Date.now(),
    };
    // Node a is already unavailable (new pod not Ready): only the unavailable old pod may go.
    assert.deepEqual(
      planRollingUpdate(input).podsToDelete.map((p) => p.metadata.name),
      [unavailableOld.metadata.name],
    );
    nodes.set('a', [pod('new', true)]);
    assert.equal(planRollingUpdate(input).podsToDelete.length, 2);
  });

  test('maxSurge 1: a new pod next to an old one, the old one goes once the new is available', () => {
    const surge = ds(
      {},
      { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } },
    );
    const oldA = pod('old', true);
    const nodes = new Map([
      ['a', [oldA]],
      ['b', [pod('old', true)]],
    ]);
    const input = {
      ds: surge,
      nodeToDaemonPods: nodes,
      shouldRun: () => true,
      desiredNumberScheduled: 2,
      hash: 'new',
      generation: undefined,
      now: Date.now(),
    };
    assert.deepEqual(planRollingUpdate(input), { podsToDelete: [], nodesToCreate: ['a'], recheckIn: undefined });
    nodes.set('a', [oldA, pod('new', false)]);
    assert.deepEqual(planRollingUpdate(input), { podsToDelete: [], nodesToCreate: [], recheckIn: undefined });
    nodes.set('a', [oldA, pod('new', true)]);
    const plan = planRollingUpdate(input);
    assert.deepEqual(plan.podsToDelete, [oldA]);
    assert.deepEqual(plan.nodesToCreate, ['b']);
  });
});
