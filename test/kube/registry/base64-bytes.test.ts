// Values of []byte fields (the models' `format: byte`: Secret.data, ConfigMap.binaryData) are
// base64 in JSON, and kube-apiserver decodes them into bytes: a value that is not base64 is
// refused with base64.CorruptInputError's text and its byte offset, in each handler's shape
// (typed-decode.test.ts cites them): create/update 400 (encoding/json saves the error, as for a
// type error); JSON/merge patch 422 on field `patch`; strategic merge patch 422 with the
// unstructured converter's wrapping (apimachinery/pkg/runtime/converter.go sliceFromUnstructured:
// "error decoding from json: …"); apply 500, the merged object failing conversion
// (managedfields/internal/structuredmerge.go "failed to convert new object … to proper version",
// runtime/scheme.go unstructuredToTyped "unable to convert unstructured object to …").
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { call } from '../../helpers/https.ts';
import { kubectl } from '../../helpers/kubectl.ts';
import { runPython } from '../../helpers/python.ts';

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster({ nodes: 0 });
});
after(() => cp.stop());

const secret = (name: string, data: Record<string, string>) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, data });

for (const version of ['1.27', '1.33']) {
  const suffix = version.replace('.', '-');
  test(`kubectl ${version}: a Secret or ConfigMap whose bytes are not base64 is refused, with the offset`, async () => {
    const run = (args: string[], input?: string) => kubectl(cp.kubeconfigPath, args, { version, input });
    const create = await run(['create', '-f', '-'], secret(`s-${suffix}`, { ok: 'aGVsbG8=', k: 'not base64' }));
    assert.equal(create.code, 1);
    assert.equal(
      create.stderr,
      'Error from server (BadRequest): error when creating "STDIN": Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3\n',
    );

    const cm = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${suffix}` },
      binaryData: { b: 'AAAA\nAA=' },
    });
    const binary = await run(['create', '-f', '-'], cm);
    assert.equal(binary.code, 1);
    assert.equal(
      binary.stderr,
      'Error from server (BadRequest): error when creating "STDIN": ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 8\n',
    );

    // Valid base64, newlines included, is taken; an update with a bad value is refused.
    const good = await run(['create', '-f', '-'], secret(`s-${suffix}`, { ok: 'aGVs\nbG8=' }));
    assert.equal(good.code, 0, good.stderr);
    const replace = await run(['replace', '-f', '-'], secret(`s-${suffix}`, { ok: 'aGVsbG8' }));
    assert.equal(replace.code, 1);
    assert.equal(
      replace.stderr,
      'Error from server (BadRequest): error when replacing "STDIN": Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 4\n',
    );

    const merge = await run(['patch', 'secret', `s-${suffix}`, '--type', 'merge', '-p', '{"data":{"k":"a!=="}}']);
    assert.equal(merge.code, 1);
    assert.ok(merge.stderr.startsWith('The request is invalid: patch: Invalid value: "{'), merge.stderr);
    assert.ok(merge.stderr.endsWith('": illegal base64 data at input byte 1\n'), merge.stderr);

    const strategic = await run(['patch', 'secret', `s-${suffix}`, '-p', '{"data":{"k":"a!=="}}']);
    assert.equal(strategic.code, 1);
    assert.equal(
      strategic.stderr,
      'The request is invalid: patch: Invalid value: "map[data:map[k:a!==]]": error decoding from json: illegal base64 data at input byte 1\n',
    );

    const kept = await run(['get', 'secret', `s-${suffix}`, '-o', 'jsonpath={.data}']);
    assert.equal(kept.code, 0, kept.stderr);
    assert.equal(Object.keys(JSON.parse(kept.stdout) as object).join(), 'ok');
  });
}

test('apply: the merged object fails conversion, a 500 as kube returns it', async () => {
  const path = '/api/v1/namespaces/default/secrets/applied?fieldManager=t';
  const apply = (data: Record<string, string>) =>
    call(cp, 'PATCH', path, Buffer.from(secret('applied', data)), { 'Content-Type': 'application/apply-patch+yaml' });
  assert.equal((await apply({ a: 'YQ==' })).code, 201);
  const bad = await apply({ a: 'YQ==', b: 'YQ=' });
  assert.equal(bad.code, 500, bad.text);
  assert.equal(
    bad.json.message,
    'failed to convert new object (/applied; /v1, Kind=Secret) to proper version: unable to convert unstructured object to /v1, Kind=Secret: error decoding from json: illegal base64 data at input byte 3',
  );
  assert.equal((await apply({ a: 'Yg==' })).code, 200);
});

test('the Python client gets the create error', async () => {
  const script = `
import json, sys
from kubernetes import client, config
from kubernetes.client.rest import ApiException
config.load_kube_config(sys.argv[1])
try:
    client.CoreV1Api().create_namespaced_secret('default', {'apiVersion': 'v1', 'kind': 'Secret',
        'metadata': {'name': 'py-b64'}, 'data': {'k': 'c2VjcmV0!'}})
    print(json.dumps([201, '']))
except ApiException as e:
    print(json.dumps([e.status, json.loads(e.body)['message']]))
`;
  const r = await runPython(cp.kubeconfigPath, script);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.json(), [
    400,
    'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 8',
  ]);
});
