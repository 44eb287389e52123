// ListOptions combinations kube-apiserver refuses before serving a list, watch or deletecollection:
// a 422 Invalid ListOptions.meta.k8s.io with one cause per problem, worded as
// staging/src/k8s.io/apimachinery/pkg/apis/meta/internalversion/validation/validation.go
// (ValidateListOptions, WatchList feature on).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { call } from '../../helpers/https.ts';
import { runPython } from '../../helpers/python.ts';

const CM = '/api/v1/namespaces/default/configmaps';
const UNLESS_RV = 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided';

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster({ nodes: 0 });
  assert.equal((await call(cp, 'POST', CM, { metadata: { name: 'keep', labels: { k: 'v' } } })).code, 201);
});
after(() => cp.stop());

interface Cause {
  reason: string;
  message: string;
  field: string;
}

const forbidden = (field: string, detail: string): Cause => ({
  reason: 'FieldValueForbidden',
  message: `Forbidden: ${detail}`,
  field,
});

/** The Status errors.NewInvalid builds: causes in order, aggregated in brackets when several. */
function invalidStatus(causes: Cause[]): Record<string, unknown> {
  const parts = causes.map((c) => `${c.field}: ${c.message}`);
  const shown = parts.length > 1 ? `[${parts.join(', ')}]` : parts[0];
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `ListOptions.meta.k8s.io "" is invalid: ${shown}`,
    reason: 'Invalid',
    details: { group: 'meta.k8s.io', kind: 'ListOptions', causes },
    code: 422,
  };
}

const CASES: Array<[string, string, Cause[]]> = [
  [
    'list: resourceVersionMatch without resourceVersion',
    '?resourceVersionMatch=NotOlderThan',
    [forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided')],
  ],
  [
    'list: resourceVersionMatch=Exact with resourceVersion 0',
    '?resourceVersionMatch=Exact&resourceVersion=0',
    [forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"')],
  ],
  [
    'list: an unknown resourceVersionMatch',
    '?resourceVersionMatch=Newest&resourceVersion=1',
    [
      {
        reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""',
        field: 'resourceVersionMatch',
      },
    ],
  ],
  [
    'list: resourceVersionMatch with continue',
    '?resourceVersionMatch=Exact&continue=abc',
    [
      forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'),
      forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
    ],
  ],
  [
    'list: sendInitialEvents',
    '?sendInitialEvents=true',
    [forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list')],
  ],
  [
    'watch: sendInitialEvents without resourceVersionMatch',
    '?watch=true&sendInitialEvents=true',
    [forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan')],
  ],
  [
    'watch: resourceVersionMatch without sendInitialEvents',
    '?watch=true&resourceVersionMatch=NotOlderThan',
    [
      forbidden(
        'resourceVersionMatch',
        'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
      ),
    ],
  ],
  [
    'watch: resourceVersionMatch=Exact',
    '?watch=true&sendInitialEvents=true&resourceVersionMatch=Exact',
    [
      forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'),
      {
        reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "Exact": supported values: "NotOlderThan"',
        field: 'resourceVersionMatch',
      },
    ],
  ],
];

for (const [what, query, causes] of CASES) {
  test(what, async () => {
    const r = await call(cp, 'GET', `${CM}${query}`);
    assert.equal(r.code, 422, r.text);
    assert.deepEqual(r.json, invalidStatus(causes));
  });
}

test('deletecollection checks its ListOptions before deleting anything', async () => {
  const r = await call(cp, 'DELETE', `${CM}?labelSelector=k%3Dv&resourceVersionMatch=NotOlderThan`);
  assert.equal(r.code, 422, r.text);
  assert.equal(r.json.message, `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: ${UNLESS_RV}`);
  assert.equal((await call(cp, 'GET', `${CM}/keep`)).code, 200);
});

test('valid combinations are served', async () => {
  const list = await call(cp, 'GET', CM);
  const rv = (list.json.metadata as Record<string, string>).resourceVersion;
  for (const query of [
    `?resourceVersionMatch=NotOlderThan&resourceVersion=${rv}`,
    `?resourceVersionMatch=Exact&resourceVersion=${rv}`,
    '?resourceVersionMatch=NotOlderThan&resourceVersion=0',
  ]) {
    const r = await call(cp, 'GET', `${CM}${query}`);
    assert.equal(r.code, 200, `${query}: ${r.text}`);
  }
});

test('the Python client sees the 422 Invalid with its cause', async () => {
  const r = await runPython(
    cp.kubeconfigPath,
    `
import json, sys
from kubernetes import client, config
from kubernetes.client.rest import ApiException
config.load_kube_config(sys.argv[1])
try:
    client.CoreV1Api().list_namespaced_config_map("default", resource_version_match="NotOlderThan")
    print(json.dumps({"status": 200}))
except ApiException as e:
    body = json.loads(e.body)
    print(json.dumps({"status": e.status, "reason": body["reason"], "causes": body["details"]["causes"]}))
`,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.json(), {
    status: 422,
    reason: 'Invalid',
    causes: [{ reason: 'FieldValueForbidden', message: UNLESS_RV, field: 'resourceVersionMatch' }],
  });
});
