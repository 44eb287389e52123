// Strategic merge patch on built-in kinds, with the patches kubectl and controllers send.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyStrategicMergePatch, builtinSchemaInfo } from '../../../../src/kube/patch/index.ts';
import type { JsonObject, JsonValue } from '../../../../src/apimachinery/meta/index.ts';
import { deepFreeze } from '../status-assert.ts';

const app = (): JsonObject => ({
  name: 'app',
  image: 'app:1',
  args: ['--debug', '--v=2'],
  env: [
    { name: 'A', value: '1' },
    { name: 'B', value: '2' },
  ],
  ports: [{ containerPort: 80, protocol: 'TCP' }],
});
const sidecar = (): JsonObject => ({ name: 'sidecar', image: 'proxy:1' });

const deployment = (): JsonObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web', tier: 'fe' }, finalizers: ['a.io/x'] },
  spec: {
    replicas: 2,
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [app(), sidecar()],
        volumes: [{ name: 'data', emptyDir: {} }],
        tolerations: [{ key: 'k', operator: 'Exists' }],
      },
    },
  },
});

/** The deployment with `edit` applied to a fresh copy of its pod spec. */
function withPodSpec(edit: (spec: JsonObject) => void): JsonObject {
  const d = deployment();
  edit(((d.spec as JsonObject).template as JsonObject).spec as JsonObject);
  return d;
}

const podSpecPatch = (spec: JsonObject): JsonObject => ({ spec: { template: { spec } } });

const cases: { name: string; patch: JsonObject; want: JsonObject }[] = [
  {
    name: 'containers merge by name, and their env and ports by key',
    patch: podSpecPatch({
      containers: [
        {
          name: 'app',
          image: 'app:2',
          env: [
            { name: 'B', value: '3' },
            { name: 'C', value: '4' },
          ],
          ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443 }],
        },
      ],
    }),
    want: withPodSpec((s) => {
      s.containers = [
        {
          ...app(),
          image: 'app:2',
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: '3' },
            { name: 'C', value: '4' },
          ],
          ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }, { containerPort: 443 }],
        },
        sidecar(),
      ];
    }),
  },
  {
    name: '$patch: delete removes a container',
    patch: podSpecPatch({ containers: [{ name: 'sidecar', $patch: 'delete' }] }),
    want: withPodSpec((s) => {
      s.containers = [app()];
    }),
  },
  {
    name: '$patch: replace as a list element replaces the list',
    patch: podSpecPatch({ containers: [{ name: 'only', image: 'x' }, { $patch: 'replace' }] }),
    want: withPodSpec((s) => {
      s.containers = [{ name: 'only', image: 'x' }];
    }),
  },
  {
    name: '$setElementOrder reorders a list the patch does not otherwise touch',
    patch: podSpecPatch({ '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }] }),
    want: withPodSpec((s) => {
      s.containers = [sidecar(), app()];
    }),
  },
  {
    name: '$setElementOrder places a new container, a server-only one keeps its place after its neighbours',
    patch: podSpecPatch({
      '$setElementOrder/containers': [{ name: 'app' }, { name: 'new' }],
      containers: [{ name: 'new', image: 'new:1' }],
    }),
    want: withPodSpec((s) => {
      s.containers = [app(), { name: 'new', image: 'new:1' }, sidecar()];
    }),
  },
  {
    name: 'kubectl apply removing an env var: nested $setElementOrder with a delete',
    patch: podSpecPatch({
      '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }],
      containers: [{ name: 'app', '$setElementOrder/env': [{ name: 'B' }], env: [{ name: 'A', $patch: 'delete' }] }],
    }),
    want: withPodSpec((s) => {
      s.containers = [{ ...app(), env: [{ name: 'B', value: '2' }] }, sidecar()];
    }),
  },
  {
    name: 'without $setElementOrder a new item goes first (as in kube)',
    patch: podSpecPatch({ containers: [{ name: 'app', env: [{ name: 'Z', value: 'z' }] }] }),
    want: withPodSpec((s) => {
      s.containers = [
        {
          ...app(),
          env: [
            { name: 'Z', value: 'z' },
            { name: 'A', value: '1' },
            { name: 'B', value: '2' },
          ],
        },
        sidecar(),
      ];
    }),
  },
  {
    name: '$retainKeys on Deployment spec.strategy drops rollingUpdate',
    patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: null } } },
    want: (() => {
      const d = deployment();
      (d.spec as JsonObject).strategy = { type: 'Recreate' };
      return d;
    })(),
  },
  {
    name: '$retainKeys on a volume switches its source',
    patch: podSpecPatch({
      '$setElementOrder/volumes': [{ name: 'data' }],
      volumes: [{ name: 'data', $retainKeys: ['configMap', 'name'], configMap: { name: 'cm' } }],
    }),
    want: withPodSpec((s) => {
      s.volumes = [{ name: 'data', configMap: { name: 'cm' } }];
    }),
  },
  {
    name: 'finalizers merge as a set: duplicates dropped, new values first',
    patch: { metadata: { finalizers: ['b.io/y', 'a.io/x', 'b.io/y'] } },
    want: (() => {
      const d = deployment();
      (d.metadata as JsonObject).finalizers = ['b.io/y', 'a.io/x'];
      return d;
    })(),
  },
  {
    name: '$deleteFromPrimitiveList removes a finalizer',
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a.io/x'] } },
    want: (() => {
      const d = deployment();
      (d.metadata as JsonObject).finalizers = [];
      return d;
    })(),
  },
  {
    name: 'a list both extended and pruned: additions first, then deletions',
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a.io/x'], finalizers: ['a.io/x', 'c.io/z'] } },
    want: (() => {
      const d = deployment();
      (d.metadata as JsonObject).finalizers = ['c.io/z'];
      return d;
    })(),
  },
  {
    name: '$deleteFromPrimitiveList also works on an atomic list (container args)',
    patch: podSpecPatch({ containers: [{ name: 'app', '$deleteFromPrimitiveList/args': ['--debug'] }] }),
    want: withPodSpec((s) => {
      s.containers = [{ ...app(), args: ['--v=2'] }, sidecar()];
    }),
  },
  {
    name: 'null deletes map keys, is ignored for absent keys, and works inside list items',
    patch: {
      metadata: { labels: { tier: null, new: 'x' } },
      spec: { paused: null, template: { spec: { containers: [{ name: 'app', env: [{ name: 'A', value: null }] }] } } },
    },
    want: (() => {
      const d = withPodSpec((s) => {
        s.containers = [
          {
            ...app(),
            env: [{ name: 'A' }, { name: 'B', value: '2' }],
          },
          sidecar(),
        ];
      });
      (d.metadata as JsonObject).labels = { app: 'web', new: 'x' };
      return d;
    })(),
  },
  {
    name: 'atomic lists are replaced, and their items decoded (nulls and directives dropped)',
    patch: podSpecPatch({ tolerations: [{ key: 'other', operator: 'Exists', value: null, $patch: 'x' }] }),
    want: withPodSpec((s) => {
      s.tolerations = [{ key: 'other', operator: 'Exists' }];
    }),
  },
  {
    name: '$patch: replace on a map, $patch: delete on a map',
    patch: {
      spec: { template: { metadata: { labels: { $patch: 'replace', v: '2' } } }, strategy: { $patch: 'delete' } },
    },
    want: (() => {
      const d = deployment();
      const spec = d.spec as JsonObject;
      spec.strategy = {};
      (spec.template as JsonObject).metadata = { labels: { v: '2' } };
      return d;
    })(),
  },
  {
    name: 'values the original lacks come from the patch without directives or nulls',
    patch: podSpecPatch({
      initContainers: [
        { name: 'gone', $patch: 'delete' },
        { name: 'init', image: 'i', env: [{ name: 'E', value: null }] },
      ],
      securityContext: { $patch: 'replace', runAsUser: 1 },
      nodeSelector: { disk: 'ssd', zone: null, '$setElementOrder/x': [] },
    }),
    want: withPodSpec((s) => {
      s.initContainers = [{ name: 'init', image: 'i', env: [{ name: 'E' }] }];
      s.nodeSelector = { disk: 'ssd' };
    }),
  },
  {
    name: 'an appended list item is decoded: its directives are dropped',
    patch: podSpecPatch({
      containers: [
        {
          name: 'new',
          image: 'n',
          '$setElementOrder/env': [{ name: 'X' }],
          env: [{ name: 'X', value: null }],
          ports: [{ containerPort: 1, $patch: 'delete' }],
        },
      ],
    }),
    want: withPodSpec((s) => {
      s.containers = [
        { name: 'new', image: 'n', env: [{ name: 'X' }], ports: [{ containerPort: 1 }] },
        app(),
        sidecar(),
      ];
    }),
  },
  {
    name: 'a top-level $patch: replace replaces the whole object',
    patch: { $patch: 'replace', kind: 'Deployment', metadata: { name: 'web' } },
    want: { kind: 'Deployment', metadata: { name: 'web' } },
  },
  {
    name: 'a scalar replaces a map and a map replaces a scalar',
    patch: { spec: { replicas: { odd: true }, strategy: 'none' } },
    want: (() => {
      const d = deployment();
      const spec = d.spec as JsonObject;
      spec.replicas = { odd: true };
      spec.strategy = 'none';
      return d;
    })(),
  },
];

for (const c of cases) {
  test(`strategic merge patch: ${c.name}`, () => {
    assert.deepEqual(applyStrategicMergePatch(deployment(), c.patch, builtinSchemaInfo('apps', 'Deployment')), c.want);
  });
}

test('strategic merge patch: Pod status conditions merge by type, Service ports by port', () => {
  const pod = {
    status: {
      conditions: [
        { type: 'PodScheduled', status: 'True' },
        { type: 'Ready', status: 'False' },
      ],
    },
  };
  const patched = applyStrategicMergePatch(
    pod,
    { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
    builtinSchemaInfo('', 'Pod'),
  );
  assert.deepEqual(patched, {
    status: {
      conditions: [
        { type: 'PodScheduled', status: 'True' },
        { type: 'Ready', status: 'True' },
      ],
    },
  });

  const svc = { spec: { ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }, { port: 443 }] } };
  assert.deepEqual(
    applyStrategicMergePatch(
      svc,
      { spec: { ports: [{ port: 80, targetPort: 9090 }] } },
      builtinSchemaInfo('', 'Service'),
    ),
    { spec: { ports: [{ port: 80, targetPort: 9090, protocol: 'TCP' }, { port: 443 }] } },
  );
});

test('strategic merge patch: Node addresses merge by type', () => {
  const node = {
    status: {
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'Hostname', address: 'n1' },
      ],
    },
  };
  const patch = { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.2' }] } };
  assert.deepEqual(applyStrategicMergePatch(node, patch, builtinSchemaInfo('', 'Node')), {
    status: {
      addresses: [
        { type: 'InternalIP', address: '10.0.0.2' },
        { type: 'Hostname', address: 'n1' },
      ],
    },
  });
});

test('strategic merge patch: ownerReferences merge by uid for any kind, custom ones included', () => {
  const widget = { metadata: { ownerReferences: [{ uid: '1', name: 'a' }] }, spec: { items: [{ name: 'x' }] } };
  const patch = { metadata: { ownerReferences: [{ uid: '2', name: 'b' }] }, spec: { items: [{ name: 'y' }] } };
  assert.deepEqual(applyStrategicMergePatch(widget, patch, builtinSchemaInfo('example.com', 'Widget')), {
    metadata: {
      ownerReferences: [
        { uid: '2', name: 'b' },
        { uid: '1', name: 'a' },
      ],
    },
    spec: { items: [{ name: 'y' }] },
  });
});

test('strategic merge patch: a PodDisruptionBudget selector is replaced whole', () => {
  const pdb = { spec: { selector: { matchLabels: { a: '1' } }, minAvailable: 1 } };
  const patch = { spec: { selector: { matchExpressions: [{ key: 'b', operator: 'Exists' }] } } };
  assert.deepEqual(applyStrategicMergePatch(pdb, patch, builtinSchemaInfo('policy', 'PodDisruptionBudget')), {
    spec: { selector: { matchExpressions: [{ key: 'b', operator: 'Exists' }] }, minAvailable: 1 },
  });
});

test('strategic merge patch: CronJob pod templates merge containers by name', () => {
  const cron = {
    spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: 'a', image: '1' }, { name: 'b' }] } } } } },
  };
  const patch = {
    spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: 'b', image: '2' }] } } } } },
  };
  assert.deepEqual(applyStrategicMergePatch(cron, patch, builtinSchemaInfo('batch', 'CronJob')), {
    spec: {
      jobTemplate: {
        spec: {
          template: {
            spec: {
              containers: [
                { name: 'a', image: '1' },
                { name: 'b', image: '2' },
              ],
            },
          },
        },
      },
    },
  });
});

test('strategic merge patch: a null body changes nothing', () => {
  assert.deepEqual(applyStrategicMergePatch(deployment(), null, builtinSchemaInfo('apps', 'Deployment')), deployment());
});

test('strategic merge patch: inputs are never modified, and the result shares nothing with them', () => {
  const original = deepFreeze(deployment());
  const patch = deepFreeze({
    metadata: { labels: { tier: null }, '$deleteFromPrimitiveList/finalizers': ['a.io/x'] },
    spec: {
      strategy: { $retainKeys: ['type'], type: 'Recreate' },
      template: {
        spec: {
          '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }, { name: 'new' }],
          containers: [
            { name: 'app', env: [{ name: 'A', $patch: 'delete' }] },
            { name: 'new', image: 'n', env: [{ name: 'N', value: 'v' }] },
          ],
          tolerations: [{ key: 't' }],
        },
      },
    },
  });
  const out = applyStrategicMergePatch(original, patch, builtinSchemaInfo('apps', 'Deployment'));
  const spec = ((out.spec as JsonObject).template as JsonObject).spec as JsonObject;
  assert.deepEqual(
    (spec.containers as JsonObject[]).map((c) => c.name),
    ['sidecar', 'app', 'new'],
  );
  assert.deepEqual(original, deployment());
  ((spec.containers as JsonObject[])[2].env as JsonValue[]).push('mutated');
  (spec.tolerations as JsonValue[]).push('mutated');
  assert.deepEqual((((patch.spec as JsonObject).template as JsonObject).spec as JsonObject).tolerations, [
    { key: 't' },
  ]);
});
