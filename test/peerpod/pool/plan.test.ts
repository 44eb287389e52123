// The pool's arithmetic on its own: a node's share, the sizes its spares take, the capacity bound,
// which spare a pod's size fits, and how a pod that fits none is told why.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  POOL_LABEL,
  POOL_SIZE_ANNOTATION,
  PeerPodAnnotations,
  poolSizeFits,
  poolSizes,
} from '../../../src/peerpod/api/index.ts';
import type { PeerPod, PeerPodConfig, PoolSpec } from '../../../src/peerpod/api/index.ts';
import type { AdaptorDeps } from '../../../src/peerpod/adaptor/deps.ts';
import { whyNoSpare } from '../../../src/peerpod/adaptor/pool/claim.ts';
import { nodePlan, poolConfigFor, sparesAllowed } from '../../../src/peerpod/adaptor/pool/plan.ts';

function config(
  pool: PoolSpec | undefined,
  extra: Partial<PeerPodConfig['spec']> = {},
  nodes: string[] = [],
): PeerPodConfig {
  return {
    metadata: { name: 'c', namespace: 'ns', creationTimestamp: '2026-11-26T00:00:00Z' },
    spec: { limitPerNode: 4, ...(pool ? { pool } : {}), ...extra },
    status: { allocation: nodes.map((node) => ({ node, vms: 4 })) },
  };
}

describe('warm pool plan', () => {
  it('gives each node sizePerNode, or spreads size over the config’s nodes like limit', () => {
    assert.equal(nodePlan(config({ sizePerNode: 3 }), 'node-1').sizes.length, 3);
    const spread = config({ size: 5 }, {}, ['node-b', 'node-a', 'node-c']);
    // Sorted names get the remainder first: a 2, b 2, c 1.
    assert.deepEqual(
      ['node-a', 'node-b', 'node-c', 'node-x'].map((n) => nodePlan(spread, n).sizes.length),
      [2, 2, 1, 0],
    );
  });

  it('assigns the sizes in turn and defaults to one provider-default size', () => {
    const plan = nodePlan(
      config({
        sizePerNode: 3,
        vmSizes: [
          { vcpus: 1, memory: '512Mi' },
          { vcpus: 2, memory: '2Gi' },
        ],
      }),
      'n',
    );
    assert.deepEqual(
      plan.sizes.map((s) => [s.vcpus, s.memoryMiB]),
      [
        [1, 512],
        [2, 2048],
        [1, 512],
      ],
    );
    assert.deepEqual(poolSizes({ sizePerNode: 1 }), [{ vcpus: 0, memoryMiB: 0 }]);
    assert.equal(nodePlan(config({ sizePerNode: 1, maxAge: '1m30s' }), 'n').maxAgeMs, 90_000);
    assert.equal(nodePlan(config({ sizePerNode: 1 }), 'n').maxConcurrentCreates, 2);
    assert.equal(
      nodePlan(config({ sizePerNode: 1 }, { extendedResource: 'sim.kata.peerpods.io/vm' }), 'n').resource,
      'sim.kata.peerpods.io/vm',
    );
  });

  it('keeps pods plus spares within the capacity', () => {
    assert.equal(sparesAllowed(2, 4, 1), 2);
    assert.equal(sparesAllowed(2, 4, 3), 1);
    assert.equal(sparesAllowed(2, 4, 4), 0);
    assert.equal(sparesAllowed(2, 4, 6), 0);
    assert.equal(sparesAllowed(2, undefined, 9), 2, 'no capacity advertised: only the share bounds it');
  });

  it('fits a pod to a spare at least as large, a default part only to a default spare', () => {
    assert.ok(poolSizeFits({ vcpus: 1, memoryMiB: 256 }, { vcpus: 1, memoryMiB: 512 }));
    assert.ok(!poolSizeFits({ vcpus: 2, memoryMiB: 256 }, { vcpus: 1, memoryMiB: 512 }));
    assert.ok(poolSizeFits({ vcpus: 0, memoryMiB: 0 }, { vcpus: 0, memoryMiB: 0 }));
    assert.ok(!poolSizeFits({ vcpus: 0, memoryMiB: 0 }, { vcpus: 1, memoryMiB: 512 }));
    assert.ok(!poolSizeFits({ vcpus: 1, memoryMiB: 512 }, { vcpus: 1, memoryMiB: 512, instanceType: 't3.small' }));
    assert.ok(
      poolSizeFits(
        { vcpus: 0, memoryMiB: 0, instanceType: 't3.small' },
        { vcpus: 0, memoryMiB: 0, instanceType: 't3.small' },
      ),
    );
  });

  it('uses the oldest config of the RuntimeClass, and none while it is deleted or sets no pool', () => {
    const a = config({ sizePerNode: 1 });
    const b = {
      ...config({ sizePerNode: 2 }),
      metadata: { name: 'b', namespace: 'ns', creationTimestamp: '2026-11-27T00:00:00Z' },
    };
    assert.equal(poolConfigFor([b, a], 'kata-remote', 'kata-remote')?.metadata.name, 'c');
    assert.equal(poolConfigFor([a], 'kata-remote-sim', 'kata-remote'), undefined);
    assert.equal(poolConfigFor([config(undefined)], 'kata-remote', 'kata-remote'), undefined);
    const deleting = { ...a, metadata: { ...a.metadata, deletionTimestamp: '2026-11-26T01:00:00Z' } };
    assert.equal(poolConfigFor([deleting], 'kata-remote', 'kata-remote'), undefined);
  });
});

describe('why a pod found no spare (the NoFittingSpare Event)', () => {
  const spare = (name: string, sizeKey: string, provider = 'qemu'): PeerPod => ({
    metadata: {
      name,
      namespace: 'ns',
      labels: { [POOL_LABEL]: 'c' },
      annotations: { [PeerPodAnnotations.node]: 'node-1', [POOL_SIZE_ANNOTATION]: sizeKey },
    },
    spec: { cloudProvider: provider, instanceID: `id-${name}` },
  });
  const depsWith = (records: PeerPod[]): AdaptorDeps =>
    ({
      peerPods: { list: () => records },
      opts: { namespace: 'ns', nodeName: 'node-1', runtimeClassName: 'kata-remote' },
    }) as unknown as AdaptorDeps;

  it('names the pod’s size and the spares’ when none fits', () => {
    const d = depsWith([spare('a', '1/512/'), spare('b', '1/512/'), spare('c', '0/0/')]);
    assert.equal(
      whyNoSpare(d, 'qemu', { vcpus: 2, memoryMiB: 1024 }),
      'none of the 3 warm qemu spare(s) on node-1 fits: the pod asks for 2/1024Mi, spares are 1/512Mi, default (a part left to the default fits only a default spare); making a new VM',
    );
    assert.match(
      whyNoSpare(d, 'qemu', { vcpus: 1, memoryMiB: 256, image: 'my-image' }) ?? '',
      /its own image \(my-image\)/,
    );
  });

  it('says nothing when a spare fits (another pod took it, or none is checked yet) or none is there', () => {
    const d = depsWith([spare('a', '1/512/'), spare('s', '4/4096/', 'simulated')]);
    assert.equal(whyNoSpare(d, 'qemu', { vcpus: 1, memoryMiB: 256 }), undefined);
    assert.equal(whyNoSpare(d, 'aws', { vcpus: 1, memoryMiB: 256 }), undefined);
    assert.equal(whyNoSpare(depsWith([]), 'qemu', { vcpus: 1, memoryMiB: 256 }), undefined);
  });
});
