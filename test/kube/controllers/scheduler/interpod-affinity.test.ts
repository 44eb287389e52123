// Required inter-pod affinity and anti-affinity (kube-scheduler's InterPodAffinity filter):
// hostname anti-affinity spreading pods and blocking a third until a node appears, podAffinity
// co-locating, the first pod of a self-affine group, symmetry with existing pods' anti-affinity,
// namespaces and namespaceSelector, terminal pods ignored, and the filter on its own for
// selector operators and zone topologies.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import {
  affinityPodOf,
  interPodFilter,
  REASON_EXISTING_ANTI_AFFINITY,
  REASON_POD_AFFINITY,
  REASON_POD_ANTI_AFFINITY,
} from '../../../../src/kube/controllers/scheduler/interpod.ts';
import { nodeInfoFrom } from '../../../../src/kube/controllers/scheduler/predicates.ts';
import {
  boundNode,
  ctx,
  defs,
  eventsFor,
  getPod,
  nodeOf,
  scheduledCondition,
  unschedulableMessage,
  until,
} from './helpers.ts';

const HOST = 'kubernetes.io/hostname';

interface Term {
  labelSelector?: JsonObject | null;
  namespaces?: string[];
  namespaceSelector?: JsonObject | null;
  topologyKey: string;
}

function affinity(kind: 'podAffinity' | 'podAntiAffinity', ...terms: Term[]): JsonObject {
  return { [kind]: { requiredDuringSchedulingIgnoredDuringExecution: terms } } as unknown as JsonObject;
}

function term(matchLabels: Record<string, string>, extra: Partial<Term> = {}): Term {
  return { labelSelector: { matchLabels }, topologyKey: HOST, ...extra };
}

async function createPod(
  cp: TestCluster,
  name: string,
  opts: { labels?: Record<string, string>; affinity?: JsonObject; node?: string; ns?: string } = {},
): Promise<void> {
  await cp.internals.store.create(
    defs(cp).pods,
    opts.ns ?? 'default',
    {
      metadata: { name, labels: opts.labels ?? {} },
      spec: {
        containers: [{ name: 'c', image: 'nginx' }],
        ...(opts.affinity ? { affinity: opts.affinity } : {}),
        ...(opts.node ? { nodeSelector: { [HOST]: opts.node } } : {}),
      },
    },
    ctx,
  );
}

async function deletePod(cp: TestCluster, name: string, ns = 'default'): Promise<void> {
  await cp.internals.store.delete(defs(cp).pods, ns, name, { gracePeriodSeconds: 0 }, ctx);
}

/** Binding after a retry: the pod may be in backoff (up to 10 s) when the cluster changes. */
async function boundAfterRetry(cp: TestCluster, name: string): Promise<string> {
  return until(() => nodeOf(cp, name), { timeoutMs: 20_000, what: `pod ${name} bound after a retry` });
}

/** Asserts the pod stays unbound for `ms` (deadline-based, fails at the first bind seen). */
async function staysPending(cp: TestCluster, name: string, ms: number, ns = 'default'): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    assert.equal(nodeOf(cp, name, ns), undefined, `${name} was bound`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('inter-pod affinity in the scheduler', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 2 });
  });
  after(() => cp.stop());

  test('hostname anti-affinity spreads two pods; a third waits for a new node', async () => {
    const anti = affinity('podAntiAffinity', term({ app: 'spread' }));
    await createPod(cp, 'spread-1', { labels: { app: 'spread' }, affinity: anti });
    await createPod(cp, 'spread-2', { labels: { app: 'spread' }, affinity: anti });
    const nodes = [await boundNode(cp, 'spread-1'), await boundNode(cp, 'spread-2')].sort();
    assert.deepEqual(nodes, ['node-1', 'node-2']);

    await createPod(cp, 'spread-3', { labels: { app: 'spread' }, affinity: anti });
    const want = "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.";
    assert.equal(await unschedulableMessage(cp, 'spread-3'), want);
    const ev = await until(() => eventsFor(cp, 'spread-3').find((e) => e.reason === 'FailedScheduling'));
    assert.equal(ev.type, 'Warning');
    assert.equal(ev.message, want);

    await cp.internals.nodes.add('node-3');
    assert.equal(await boundAfterRetry(cp, 'spread-3'), 'node-3');
    assert.equal(scheduledCondition(cp, 'spread-3')?.status, 'True');
    // Leave two nodes for the tests below.
    await deletePod(cp, 'spread-3');
    await cp.internals.nodes.remove('node-3');
    await until(() => cp.internals.nodes.list().length === 2, { what: 'node-3 gone' });
  });

  test('podAffinity co-locates with the matching pod', async () => {
    await createPod(cp, 'db', { labels: { app: 'db' }, node: 'node-2' });
    assert.equal(await boundNode(cp, 'db'), 'node-2');
    await createPod(cp, 'cache', { labels: { app: 'cache' }, affinity: affinity('podAffinity', term({ app: 'db' })) });
    assert.equal(await boundNode(cp, 'cache'), 'node-2');
  });

  test('podAffinity with no matching pod waits, and binds once one lands', async () => {
    await createPod(cp, 'follower', { affinity: affinity('podAffinity', term({ app: 'leader' })) });
    assert.equal(
      await unschedulableMessage(cp, 'follower'),
      "0/2 nodes are available: 2 node(s) didn't match pod affinity rules.",
    );
    await createPod(cp, 'leader', { labels: { app: 'leader' }, node: 'node-1' });
    assert.equal(await boundNode(cp, 'leader'), 'node-1');
    assert.equal(await boundAfterRetry(cp, 'follower'), 'node-1');
  });

  test('a bound pod gaining a label lets a waiting pod join it', async () => {
    await createPod(cp, 'untagged', { node: 'node-2' });
    assert.equal(await boundNode(cp, 'untagged'), 'node-2');
    await createPod(cp, 'wants-tag', { affinity: affinity('podAffinity', term({ tag: 'yes' })) });
    await unschedulableMessage(cp, 'wants-tag');
    await cp.internals.store.updateWith(defs(cp).pods, 'default', 'untagged', ctx, (p) => {
      (p.metadata as { labels?: Record<string, string> }).labels = { tag: 'yes' };
      return p;
    });
    assert.equal(await boundAfterRetry(cp, 'wants-tag'), 'node-2');
  });

  test('the first pod of a self-affine group schedules; the next ones join it', async () => {
    const aff = affinity('podAffinity', term({ group: 'g' }));
    await createPod(cp, 'group-1', { labels: { group: 'g' }, affinity: aff });
    const first = await boundNode(cp, 'group-1');
    await createPod(cp, 'group-2', { labels: { group: 'g' }, affinity: aff });
    await createPod(cp, 'group-3', { labels: { group: 'g' }, affinity: aff });
    assert.equal(await boundNode(cp, 'group-2'), first);
    assert.equal(await boundNode(cp, 'group-3'), first);
  });

  test("symmetry: an existing pod's anti-affinity keeps the incoming pod away", async () => {
    await createPod(cp, 'guard', {
      labels: { role: 'guard' },
      affinity: affinity('podAntiAffinity', term({ app: 'intruder' })),
      node: 'node-1',
    });
    assert.equal(await boundNode(cp, 'guard'), 'node-1');
    // The intruder itself has no affinity at all.
    await createPod(cp, 'intruder', { labels: { app: 'intruder' }, node: 'node-1' });
    assert.equal(
      await unschedulableMessage(cp, 'intruder'),
      "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) didn't satisfy existing pods anti-affinity rules.",
    );
    await createPod(cp, 'intruder-free', { labels: { app: 'intruder' } });
    assert.equal(await boundNode(cp, 'intruder-free'), 'node-2');
    // Once the guard is gone, the pinned intruder is retried and bound.
    await deletePod(cp, 'guard');
    assert.equal(await boundAfterRetry(cp, 'intruder'), 'node-1');
  });

  test('terminal pods do not count', async () => {
    await createPod(cp, 'finished', {
      labels: { app: 'finished' },
      affinity: affinity('podAntiAffinity', term({ app: 'after-finished' })),
      node: 'node-2',
    });
    assert.equal(await boundNode(cp, 'finished'), 'node-2');
    await until(() => (getPod(cp, 'finished').status as JsonObject).phase === 'Running');
    await cp.internals.store.updateWith(
      defs(cp).pods,
      'default',
      'finished',
      ctx,
      (p) => {
        p.status = { ...(p.status as JsonObject), phase: 'Succeeded' };
        return p;
      },
      'status',
    );
    await createPod(cp, 'after-finished', { labels: { app: 'after-finished' }, node: 'node-2' });
    assert.equal(await boundNode(cp, 'after-finished'), 'node-2');
  });

  test('namespaces and namespaceSelector choose whose pods a term sees', async () => {
    const nsDef = cp.internals.catalog.lookup('', 'v1', 'namespaces')!;
    await cp.internals.store.create(nsDef, undefined, { metadata: { name: 'team-x', labels: { team: 'x' } } }, ctx);
    await createPod(cp, 'x-web', { labels: { app: 'x-web' }, node: 'node-1', ns: 'team-x' });
    assert.equal(await boundNode(cp, 'x-web', 'team-x'), 'node-1');

    // Default: only the pod's own namespace, so the team-x pod is invisible.
    await createPod(cp, 'own-ns', { affinity: affinity('podAffinity', term({ app: 'x-web' })) });
    assert.match(await unschedulableMessage(cp, 'own-ns'), /2 node\(s\) didn't match pod affinity rules/);
    // Named namespace.
    await createPod(cp, 'named-ns', {
      affinity: affinity('podAffinity', term({ app: 'x-web' }, { namespaces: ['team-x'] })),
    });
    assert.equal(await boundNode(cp, 'named-ns'), 'node-1');
    // Namespace selector (anti-affinity here).
    await createPod(cp, 'selected-ns', {
      affinity: affinity(
        'podAntiAffinity',
        term({ app: 'x-web' }, { namespaceSelector: { matchLabels: { team: 'x' } } }),
      ),
    });
    assert.equal(await boundNode(cp, 'selected-ns'), 'node-2');
    // `{}` selects every namespace.
    await createPod(cp, 'all-ns', {
      affinity: affinity('podAffinity', term({ app: 'x-web' }, { namespaceSelector: {} })),
    });
    assert.equal(await boundNode(cp, 'all-ns'), 'node-1');
  });

  test('pods without any affinity are not held back by unrelated anti-affinity', async () => {
    await createPod(cp, 'plain-a');
    await createPod(cp, 'plain-b');
    await boundNode(cp, 'plain-a');
    await boundNode(cp, 'plain-b');
  });

  test('an unsatisfiable pod stays Pending', async () => {
    await createPod(cp, 'never', {
      labels: { app: 'never' },
      affinity: {
        ...affinity('podAffinity', term({ app: 'db' })),
        ...affinity('podAntiAffinity', term({ app: 'cache' })),
      },
    });
    // db and cache share node-2: affinity sends it there, anti-affinity forbids it.
    assert.equal(
      await unschedulableMessage(cp, 'never'),
      "0/2 nodes are available: 1 node(s) didn't match pod affinity rules, 1 node(s) didn't match pod anti-affinity rules.",
    );
    await staysPending(cp, 'never', 500);
  });
});

describe('InterPodAffinity filter', () => {
  const node = (name: string, labels: Record<string, string>) => nodeInfoFrom({ metadata: { name, labels } });
  const nodes = new Map([
    ['a1', node('a1', { [HOST]: 'a1', zone: 'a' })],
    ['a2', node('a2', { [HOST]: 'a2', zone: 'a' })],
    ['b1', node('b1', { [HOST]: 'b1', zone: 'b' })],
    ['bare', node('bare', { [HOST]: 'bare' })],
  ]);
  const pod = (labels: Record<string, string>, aff?: JsonObject, ns = 'default') =>
    affinityPodOf({ metadata: { name: 'p', namespace: ns, labels }, spec: aff ? { affinity: aff } : {} });
  const noNs = (): undefined => undefined;
  const run = (incoming: ReturnType<typeof pod>, existing: Array<[string, ReturnType<typeof pod>]>) => {
    const f = interPodFilter(
      incoming,
      existing.map(([n, p]) => ({ node: n, pod: p })),
      nodes,
      noNs,
    );
    return Object.fromEntries([...nodes.values()].map((n) => [n.name, f ? (f(n) ?? 'ok') : 'ok']));
  };
  const expr = (key: string, operator: string, values?: string[]): Term => ({
    labelSelector: { matchExpressions: [{ key, operator, ...(values ? { values } : {}) }] },
    topologyKey: 'zone',
  });

  test('no terms anywhere: no filter', () => {
    assert.equal(interPodFilter(pod({ a: '1' }), [{ node: 'a1', pod: pod({}) }], nodes, noNs), undefined);
  });

  test('zone affinity with In; nodes without the topology key never fit', () => {
    const incoming = pod({}, affinity('podAffinity', expr('app', 'In', ['db', 'x'])));
    assert.deepEqual(run(incoming, [['a2', pod({ app: 'db' })]]), {
      a1: 'ok',
      a2: 'ok',
      b1: REASON_POD_AFFINITY,
      bare: REASON_POD_AFFINITY,
    });
  });

  test('zone anti-affinity with Exists, NotIn and DoesNotExist', () => {
    const exists = pod({}, affinity('podAntiAffinity', expr('tier', 'Exists')));
    assert.deepEqual(run(exists, [['b1', pod({ tier: 'x' })]]), {
      a1: 'ok',
      a2: 'ok',
      b1: REASON_POD_ANTI_AFFINITY,
      bare: 'ok',
    });
    const notIn = pod({}, affinity('podAntiAffinity', expr('tier', 'NotIn', ['x'])));
    assert.deepEqual(
      run(notIn, [
        ['a1', pod({ tier: 'x' })],
        ['b1', pod({ tier: 'y' })],
      ]),
      {
        a1: 'ok',
        a2: 'ok',
        b1: REASON_POD_ANTI_AFFINITY,
        bare: 'ok',
      },
    );
    const doesNotExist = pod({}, affinity('podAntiAffinity', expr('tier', 'DoesNotExist')));
    assert.deepEqual(
      run(doesNotExist, [
        ['a1', pod({ tier: 'x' })],
        ['b1', pod({ other: 'y' })],
      ]),
      {
        a1: 'ok',
        a2: 'ok',
        b1: REASON_POD_ANTI_AFFINITY,
        bare: 'ok',
      },
    );
  });

  test('affinity counts only pods matching all terms; self-match needs all terms too', () => {
    const incoming = pod(
      { app: 'web' },
      affinity('podAffinity', term({ app: 'web' }, { topologyKey: 'zone' }), term({ env: 'prod' })),
    );
    // a1's pod matches one term only: no pod matches, and the incoming pod does not match both.
    assert.deepEqual(run(incoming, [['a1', pod({ app: 'web' })]]), {
      a1: REASON_POD_AFFINITY,
      a2: REASON_POD_AFFINITY,
      b1: REASON_POD_AFFINITY,
      bare: REASON_POD_AFFINITY,
    });
    // A pod matching both terms on a1: same zone and same host required.
    assert.deepEqual(run(incoming, [['a1', pod({ app: 'web', env: 'prod' })]]), {
      a1: 'ok',
      a2: REASON_POD_AFFINITY,
      b1: REASON_POD_AFFINITY,
      bare: REASON_POD_AFFINITY,
    });
    // Self-affine and alone: any node with both topology keys.
    const self = pod(
      { app: 'web', env: 'prod' },
      affinity('podAffinity', term({ app: 'web' }, { topologyKey: 'zone' }), term({ env: 'prod' })),
    );
    assert.deepEqual(run(self, [['a1', pod({ app: 'web' })]]), {
      a1: 'ok',
      a2: 'ok',
      b1: 'ok',
      bare: REASON_POD_AFFINITY,
    });
  });

  test("existing pods' anti-affinity across a zone, with its namespace rules", () => {
    const guard = pod({}, affinity('podAntiAffinity', expr('app', 'In', ['web'])), 'guarded');
    // The guard's term defaults to its own namespace: a web pod in default is not selected.
    assert.equal(interPodFilter(pod({ app: 'web' }), [{ node: 'a1', pod: guard }], nodes, noNs), undefined);
    assert.deepEqual(run(pod({ app: 'web' }, undefined, 'guarded'), [['a1', guard]]), {
      a1: REASON_EXISTING_ANTI_AFFINITY,
      a2: REASON_EXISTING_ANTI_AFFINITY,
      b1: 'ok',
      bare: 'ok',
    });
    // A namespaceSelector is matched against the incoming pod's namespace labels.
    const selecting = pod(
      {},
      affinity('podAntiAffinity', {
        ...expr('app', 'In', ['web']),
        namespaceSelector: { matchLabels: { team: 'x' } },
      }),
      'guarded',
    );
    const labels = (ns: string): Record<string, string> => (ns === 'team-x' ? { team: 'x' } : {});
    const f = interPodFilter(
      pod({ app: 'web' }, undefined, 'team-x'),
      [{ node: 'b1', pod: selecting }],
      nodes,
      labels,
    )!;
    assert.equal(f(nodes.get('b1')!), REASON_EXISTING_ANTI_AFFINITY);
    assert.equal(f(nodes.get('a1')!), undefined);
    const g = interPodFilter(pod({ app: 'web' }, undefined, 'team-y'), [{ node: 'b1', pod: selecting }], nodes, labels);
    assert.equal(g, undefined);
  });

  test('a null labelSelector selects nothing', () => {
    const incoming = pod({}, affinity('podAntiAffinity', { labelSelector: null, topologyKey: HOST }));
    assert.deepEqual(run(incoming, [['a1', pod({ app: 'x' })]]), { a1: 'ok', a2: 'ok', b1: 'ok', bare: 'ok' });
  });
});
