// Scheduler filters end to end: nodeSelector, required node affinity, taints and tolerations,
// cordoned and NotReady nodes, with kube-scheduler's FailedScheduling messages.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { boundNode, createPod, eventsFor, labelNode, unschedulableMessage, until, updateNode } from './helpers.ts';

describe('scheduler predicates', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 2 });
    await labelNode(cp, 'node-1', { zone: 'a', gen: '3' });
    await labelNode(cp, 'node-2', { zone: 'b', gen: '5', gpu: 'yes' });
  });
  after(() => cp.stop());

  test('nodeSelector picks the labelled node, or none', async () => {
    await createPod(cp, 'sel-b', { nodeSelector: { zone: 'b' } });
    assert.equal(await boundNode(cp, 'sel-b'), 'node-2');
    await createPod(cp, 'sel-none', { nodeSelector: { zone: 'c' } });
    assert.equal(
      await unschedulableMessage(cp, 'sel-none'),
      "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.",
    );
  });

  const affinity = (terms: JsonObject[]): JsonObject => ({
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } },
  });
  const expr = (key: string, operator: string, values?: string[]) => ({
    matchExpressions: [{ key, operator, ...(values ? { values } : {}) }],
  });
  const cases: Array<[string, JsonObject[], string]> = [
    ['in', [expr('zone', 'In', ['a'])], 'node-1'],
    ['notin', [expr('zone', 'NotIn', ['a'])], 'node-2'],
    ['exists', [expr('gpu', 'Exists')], 'node-2'],
    ['doesnotexist', [expr('gpu', 'DoesNotExist')], 'node-1'],
    ['gt', [expr('gen', 'Gt', ['4'])], 'node-2'],
    ['lt', [expr('gen', 'Lt', ['4'])], 'node-1'],
    ['fields', [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-2'] }] }], 'node-2'],
    ['or-terms', [expr('zone', 'In', ['nowhere']), expr('zone', 'In', ['a'])], 'node-1'],
  ];
  for (const [name, terms, want] of cases) {
    test(`required node affinity: ${name}`, async () => {
      await createPod(cp, `aff-${name}`, affinity(terms));
      assert.equal(await boundNode(cp, `aff-${name}`), want);
    });
  }

  test('required node affinity that matches nothing', async () => {
    await createPod(cp, 'aff-none', affinity([expr('gen', 'Gt', ['10'])]));
    assert.equal(
      await unschedulableMessage(cp, 'aff-none'),
      "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.",
    );
    const ev = await until(() => eventsFor(cp, 'aff-none').find((e) => e.reason === 'FailedScheduling'));
    assert.equal(ev.type, 'Warning');
    assert.equal(ev.reportingComponent, 'default-scheduler');
    assert.deepEqual(ev.source, { component: 'default-scheduler' });
  });

  test('another schedulerName is left alone', async () => {
    await createPod(cp, 'other-sched', { schedulerName: 'my-scheduler' });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(eventsFor(cp, 'other-sched').length, 0);
  });
});

describe('taints, tolerations, cordon and NotReady', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 2 });
    await updateNode(cp, 'node-1', (n) => {
      n.spec = { ...(n.spec as object), taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] };
    });
    // Cordon: the lifecycle controller adds node.kubernetes.io/unschedulable:NoSchedule.
    await updateNode(cp, 'node-2', (n) => {
      n.spec = { ...(n.spec as object), unschedulable: true };
    });
  });
  after(() => cp.stop());

  test('untolerated taint and cordoned node', async () => {
    await createPod(cp, 'plain');
    assert.equal(
      await unschedulableMessage(cp, 'plain'),
      '0/2 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) were unschedulable.',
    );
  });

  test('a toleration lets the pod onto the tainted node', async () => {
    await createPod(cp, 'tolerant', {
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }],
    });
    assert.equal(await boundNode(cp, 'tolerant'), 'node-1');
  });

  test('tolerating the unschedulable taint passes a cordon', async () => {
    await createPod(cp, 'cordon-ok', {
      tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }],
      nodeSelector: { 'kubernetes.io/hostname': 'node-2' },
    });
    assert.equal(await boundNode(cp, 'cordon-ok'), 'node-2');
  });

  test('PreferNoSchedule does not filter; NoExecute does', async () => {
    await updateNode(cp, 'node-1', (n) => {
      n.spec = { ...(n.spec as object), taints: [{ key: 'soft', effect: 'PreferNoSchedule' }] };
    });
    await createPod(cp, 'soft', { nodeSelector: { 'kubernetes.io/hostname': 'node-1' } });
    assert.equal(await boundNode(cp, 'soft'), 'node-1');
    await updateNode(cp, 'node-1', (n) => {
      n.spec = { ...(n.spec as object), taints: [{ key: 'evict', value: 'now', effect: 'NoExecute' }] };
    });
    await createPod(cp, 'noexec', { nodeSelector: { 'kubernetes.io/hostname': 'node-1' } });
    assert.equal(
      await unschedulableMessage(cp, 'noexec'),
      // node-2 is cordoned: NodeUnschedulable rejects it before NodeAffinity is asked.
      '0/2 nodes are available: 1 node(s) had untolerated taint {evict: now}, 1 node(s) were unschedulable.',
    );
  });

  test('a NotReady node gets the not-ready taints and no new pods', async () => {
    await updateNode(cp, 'node-1', (n) => {
      delete (n.spec as { taints?: unknown }).taints;
    });
    await cp.internals.nodes.setReady('node-1', false);
    const taints = await until(() => {
      const n = cp.internals.store.get(cp.internals.catalog.lookup('', 'v1', 'nodes')!, undefined, 'node-1');
      const t = ((n.spec as { taints?: Array<{ key: string; effect: string }> }).taints ?? []).filter(
        (x) => x.key === 'node.kubernetes.io/not-ready',
      );
      return t.length === 2 ? t : undefined;
    });
    assert.deepEqual(taints.map((t) => t.effect).sort(), ['NoExecute', 'NoSchedule']);
    await createPod(cp, 'while-notready');
    assert.equal(
      await unschedulableMessage(cp, 'while-notready'),
      '0/2 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 1 node(s) were unschedulable.',
    );
    // Ready again: taints go, and the waiting pod is retried and bound there.
    await cp.internals.nodes.setReady('node-1', true);
    assert.equal(await boundNode(cp, 'while-notready'), 'node-1');
  });
});
