// The official Python client asking for metadata only: the dynamic client's `get` with an Accept
// header (list, get, watch) and ApiClient.call_api, the generated client's transport. Expected
// shapes: kube-apiserver's asPartialObjectMetadata(List) in
// staging/src/k8s.io/apiserver/pkg/endpoints/handlers/response.go.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { rootCaPublished } from '../../../helpers/https.ts';
import { runPython } from '../../../helpers/python.ts';
import { call } from '../http.ts';

const SCRIPT = String.raw`
import json, sys
from kubernetes import config, dynamic, watch
api = config.new_client_from_config(config_file=sys.argv[1])
dyn = dynamic.DynamicClient(api)
LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json'
ONE = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json'
out = {}
nodes = dyn.resources.get(api_version='v1', kind='Node')
out['nodes'] = nodes.get(header_params={'Accept': LIST}).to_dict()
cms = dyn.resources.get(api_version='v1', kind='ConfigMap')
out['cm'] = cms.get(name='a', namespace='default', header_params={'Accept': ONE}).to_dict()
widgets = dyn.resources.get(api_version='example.com/v1', kind='Widget')
out['widgets'] = widgets.get(namespace='default', header_params={'Accept': LIST.replace('v=v1', 'v=v1beta1')}).to_dict()
out['call_api'] = api.call_api('/api/v1/namespaces/{namespace}/configmaps', 'GET', {'namespace': 'default'},
    [('limit', 1)], {'Accept': LIST}, auth_settings=['BearerToken'], response_type='object',
    _return_http_data_only=True)
w = watch.Watch()
events = []
for e in w.stream(dyn.get, widgets, namespace='default', serialize=False, header_params={'Accept': ONE},
        timeout_seconds=10, query_params=[('sendInitialEvents', 'true'),
        ('resourceVersionMatch', 'NotOlderThan'), ('allowWatchBookmarks', 'true')]):
    events.append({'type': e['type'], 'object': e['raw_object']})
    if e['type'] == 'BOOKMARK':
        w.stop()
out['watch'] = events
print(json.dumps(out))
`;

interface Partial {
  kind: string;
  apiVersion: string;
  metadata: { name?: string; namespace?: string; annotations?: Record<string, string> };
}
interface PartialList {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: Partial[];
}

let cp: TestCluster;
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';

before(async () => {
  cp = await startTestCluster({ scheduler: false, nodes: 2 });
  // default's ConfigMaps: the root CA publisher's kube-root-ca.crt and a, b.
  await rootCaPublished(cp, 'default');
  for (const name of ['a', 'b']) {
    const r = await call(cp, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: { metadata: { name }, data: { k: 'v' } },
    });
    assert.equal(r.status, 201, r.body);
  }
  const crd = await call(cp, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    body: {
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', kind: 'Widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    },
  });
  assert.equal(crd.status, 201, crd.body);
  await eventually(async () => (await call(cp, 'GET', WIDGETS)).status === 200, { what: 'widgets served' });
  const w = await call(cp, 'POST', WIDGETS, {
    body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } },
  });
  assert.equal(w.status, 201, w.body);
});
after(() => cp.stop());

test('python3-kubernetes lists, gets and watches metadata only', async () => {
  const r = await runPython(cp.kubeconfigPath, SCRIPT, 90_000);
  assert.equal(r.code, 0, r.stderr);
  const out = r.json() as {
    nodes: PartialList;
    cm: Partial;
    widgets: PartialList;
    call_api: PartialList;
    watch: Array<{ type: string; object: Partial }>;
  };

  assert.equal(out.nodes.kind, 'PartialObjectMetadataList');
  assert.equal(out.nodes.apiVersion, 'meta.k8s.io/v1');
  assert.equal(out.nodes.items.length, 2);
  for (const item of out.nodes.items) {
    assert.deepEqual(Object.keys(item).sort(), ['apiVersion', 'kind', 'metadata']);
    assert.equal(item.kind, 'PartialObjectMetadata');
  }

  assert.equal(out.cm.kind, 'PartialObjectMetadata');
  assert.equal(out.cm.metadata.name, 'a');
  assert.equal((out.cm as { data?: unknown }).data, undefined);

  assert.equal(out.widgets.apiVersion, 'meta.k8s.io/v1beta1');
  assert.deepEqual(
    out.widgets.items.map((i) => [i.kind, i.apiVersion, i.metadata.name]),
    [['PartialObjectMetadata', 'meta.k8s.io/v1beta1', 'w1']],
  );

  assert.equal(out.call_api.kind, 'PartialObjectMetadataList');
  assert.equal(out.call_api.items.length, 1);
  assert.ok(out.call_api.metadata.continue);
  assert.equal(out.call_api.metadata.remainingItemCount, 2);

  assert.deepEqual(
    out.watch.map((e) => [e.type, e.object.kind, e.object.metadata.name]),
    [
      ['ADDED', 'PartialObjectMetadata', 'w1'],
      ['BOOKMARK', 'PartialObjectMetadata', undefined],
    ],
  );
  assert.deepEqual(out.watch[1].object.metadata.annotations, { 'k8s.io/initial-events-end': 'true' });
});
