// kube-scheduler's percentageOfNodesToScore: in a cluster of 100 nodes or more the search for a
// node stops once enough feasible nodes are found, and the next pod starts where it stopped, so
// large clusters schedule without looking at every node while every node still gets its turn.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { feasibleNodesToFind } from '../../../../src/kube/controllers/scheduler/scheduler.ts';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { boundNode, createPod } from './helpers.ts';

test('how many feasible nodes end the search: kube numFeasibleNodesToFind', () => {
  assert.equal(feasibleNodesToFind(50), 50);
  assert.equal(feasibleNodesToFind(99), 99);
  assert.equal(feasibleNodesToFind(100), 100);
  assert.equal(feasibleNodesToFind(1000), 420); // 50 % − 1,000/125 = 42 %
  assert.equal(feasibleNodesToFind(5000), 500); // 10 %
  assert.equal(feasibleNodesToFind(10000), 500); // the 5 % floor
  assert.equal(feasibleNodesToFind(1000, 30), 300);
  assert.equal(feasibleNodesToFind(1000, 5), 100); // never fewer than 100
  assert.equal(feasibleNodesToFind(1000, 100), 1000);
});

describe('a cluster above 100 nodes', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 150 });
  });
  after(() => cp.stop());

  test('pods spread over every node although each search stops at 100 feasible ones', async () => {
    const spec = { containers: [{ name: 'c', image: 'pause', resources: { requests: { cpu: '100m' } } }] };
    for (let i = 0; i < 300; i++) await createPod(cp, `p-${i}`, spec);
    const perNode = new Map<string, number>();
    for (let i = 0; i < 300; i++) {
      const node = await boundNode(cp, `p-${i}`);
      perNode.set(node, (perNode.get(node) ?? 0) + 1);
    }
    assert.equal(perNode.size, 150, 'every node was chosen');
    assert.ok(Math.max(...perNode.values()) <= 3, `at most 3 pods on a node: ${JSON.stringify([...perNode])}`);
  });
});
