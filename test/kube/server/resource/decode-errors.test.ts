// A body the server cannot decode is refused with kube-apiserver's words, never the JavaScript
// parser's: handlers/rest.go transformDecodeError ("the object provided is unrecognized (must be
// of type K): <decoder error> (<summarizeData>)") for create and update, with the JSON
// serializer's "couldn't get version/kind; json parse error: <encoding/json error>"
// (runtime/serializer/json/meta.go); handlers/patch.go's "error decoding patch: ..." for patches.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { call, type Reply } from '../../../helpers/https.ts';
import { kubectl } from '../../../helpers/kubectl.ts';

const NAMESPACE_YAML = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: from-yaml\n';
/** summarizeData: the first 30 bytes in hex when the body does not start with `{`. */
const NAMESPACE_YAML_SUMMARY = `${Buffer.from(NAMESPACE_YAML).subarray(0, 30).toString('hex')} ...`;
const YAML_AS_JSON = `the object provided is unrecognized (must be of type Namespace): couldn't get version/kind; json parse error: invalid character 'a' looking for beginning of value (${NAMESPACE_YAML_SUMMARY})`;

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster({ nodes: 0 });
});
after(() => cp.stop());

function badRequest(r: Reply, message: string): void {
  assert.equal(r.code, 400, r.text);
  assert.deepEqual(r.json, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: 'BadRequest',
    code: 400,
  });
}

for (const version of ['1.27', '1.33']) {
  test(`kubectl ${version} create --raw with YAML gets kube's decode error`, async () => {
    const file = join(cp.dir, 'namespace.yaml');
    writeFileSync(file, NAMESPACE_YAML);
    const r = await kubectl(cp.kubeconfigPath, ['create', '--raw', '/api/v1/namespaces', '-f', file], { version });
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `Error from server (BadRequest): ${YAML_AS_JSON}\n`);
  });
}

test('create: YAML sent as application/json, an empty body, broken YAML', async () => {
  badRequest(await call(cp, 'POST', '/api/v1/namespaces', Buffer.from(NAMESPACE_YAML)), YAML_AS_JSON);
  badRequest(
    await call(cp, 'POST', '/api/v1/namespaces', Buffer.alloc(0), { 'Content-Type': 'application/json' }),
    "the object provided is unrecognized (must be of type Namespace): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)",
  );
  badRequest(
    await call(cp, 'POST', '/api/v1/namespaces/default/configmaps', Buffer.from('data: a: b'), {
      'Content-Type': 'application/yaml',
    }),
    `the object provided is unrecognized (must be of type ConfigMap): yaml: line 1: mapping values are not allowed in this context (${Buffer.from('data: a: b').toString('hex')})`,
  );
});

test('update: a truncated JSON body is summarized as text', async () => {
  const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":';
  badRequest(
    await call(cp, 'PUT', '/api/v1/namespaces/default/configmaps/x', Buffer.from(body)),
    `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input (${body.slice(0, 30)} ...)`,
  );
});

test('patch: every patch type reports the Go decoder error', async () => {
  const cases: Array<[string, string, string]> = [
    ['application/merge-patch+json', '{"data":', 'error decoding patch: unexpected end of JSON input'],
    [
      'application/json-patch+json',
      "[{'op':'add'}]",
      "error decoding patch: invalid character '\\'' looking for beginning of object key string",
    ],
    [
      'application/strategic-merge-patch+json',
      '{"data" {}}',
      "error decoding patch: invalid character '{' after object key",
    ],
    [
      'application/apply-patch+yaml',
      'data: a: b',
      'error decoding patch: error converting YAML to JSON: yaml: line 1: mapping values are not allowed in this context',
    ],
  ];
  for (const [type, body, message] of cases) {
    const r = await call(cp, 'PATCH', '/api/v1/namespaces/default?fieldManager=t', Buffer.from(body), {
      'Content-Type': type,
    });
    badRequest(r, message);
  }
});

test('scale: a PUT body that is not JSON', async () => {
  const deployment = {
    metadata: { name: 'web' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  };
  assert.equal((await call(cp, 'POST', '/apis/apps/v1/namespaces/default/deployments', deployment)).code, 201);
  badRequest(
    await call(cp, 'PUT', '/apis/apps/v1/namespaces/default/deployments/web/scale', Buffer.from('spec: 1')),
    `the object provided is unrecognized (must be of type Scale): couldn't get version/kind; json parse error: invalid character 's' looking for beginning of value (${Buffer.from('spec: 1').toString('hex')})`,
  );
});
