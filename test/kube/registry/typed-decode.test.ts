// Writes of built-in kinds decode into typed objects, as kube-apiserver's do, so values of the
// wrong JSON type, a changed kind or uid and an apply configuration without kind are refused with
// kube's answers:
// - create/update: handlers/rest.go transformDecodeError, 400 `K in version "v1" cannot be handled as a K: …`;
// - JSON and merge patch: handlers/patch.go jsonPatcher.applyPatchToCurrentObject, 422
//   `errors.NewInvalid(schema.GroupKind{}, "", field.Invalid("patch", <patched JSON>, <decode error>))`;
//   a changed kind fails conversion (apimachinery/pkg/conversion/converter.go "unknown conversion");
// - strategic merge patch: patch.go applyPatchToObject, the patch printed with %+v and the
//   unstructured converter's error (apimachinery/pkg/runtime/converter.go);
// - a PUT with another uid: registry/rest/update.go defaultUpdatedObjectInfo.Preconditions and
//   storage/interfaces.go Preconditions.Check, 409 with the StorageError text;
//   a patch changing metadata.uid: ValidateObjectMetaUpdate, 422 "field is immutable";
// - apply without kind/apiVersion: managedfields/internal/versioncheck.go "invalid object type";
// - ConfigMap data over 1 MiB: pkg/apis/core/validation ValidateConfigMap, field.TooLong on
//   field.NewPath("") (printed "[]").
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { call } from '../../helpers/https.ts';
import { kubectl } from '../../helpers/kubectl.ts';
import { runPython } from '../../helpers/python.ts';

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster({ nodes: 0 });
});
after(() => cp.stop());

const DATA_NOT_STRING = 'json: cannot unmarshal number into Go struct field ConfigMap.data of type string';

async function createConfigMap(name: string): Promise<void> {
  const r = await kubectl(cp.kubeconfigPath, ['create', 'cm', name, '--from-literal=a=b']);
  assert.equal(r.code, 0, r.stderr);
}

async function configMap(name: string): Promise<{ kind: string; data: unknown; uid: string }> {
  const r = await kubectl(cp.kubeconfigPath, ['get', 'cm', name, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const o = JSON.parse(r.stdout) as { kind: string; data: unknown; metadata: { uid: string } };
  return { kind: o.kind, data: o.data, uid: o.metadata.uid };
}

for (const version of ['1.27', '1.33']) {
  test(`kubectl ${version}: patches that do not decode into a ConfigMap are refused, the object stays readable`, async () => {
    const name = `cm-${version.replace('.', '-')}`;
    await createConfigMap(name);
    const { uid } = await configMap(name);
    const run = (args: string[]) => kubectl(cp.kubeconfigPath, args, { version });

    const merge = await run(['patch', 'cm', name, '--type', 'merge', '-p', '{"data":{"k":5}}']);
    assert.equal(merge.code, 1);
    // The value is the patched object as Go's json-patch writes it: the documents it merged
    // into re-encoded with sorted keys, the rest (metadata) in field order.
    assert.ok(
      merge.stderr.startsWith(
        'The request is invalid: patch: Invalid value: "{\\"apiVersion\\":\\"v1\\",\\"data\\":{\\"a\\":\\"b\\",\\"k\\":5},\\"kind\\":\\"ConfigMap\\",\\"metadata\\":{\\"name\\":',
      ),
      merge.stderr,
    );
    assert.ok(merge.stderr.endsWith(`}}": ${DATA_NOT_STRING}\n`), merge.stderr);

    const strategic = await run(['patch', 'cm', name, '-p', '{"data":{"k":5}}']);
    assert.equal(strategic.code, 1);
    assert.equal(
      strategic.stderr,
      'The request is invalid: patch: Invalid value: "map[data:map[k:5]]": cannot convert int64 to string\n',
    );

    const kind = await run([
      'patch',
      'cm',
      name,
      '--type',
      'json',
      '-p',
      '[{"op":"replace","path":"/kind","value":"Secret"}]',
    ]);
    assert.equal(kind.code, 1);
    assert.match(
      kind.stderr,
      /^The request is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"v1\\",\\"data\\":\{\\"a\\":\\"b\\"\},\\"kind\\":\\"Secret\\",/,
    );
    assert.ok(kind.stderr.endsWith('": converting (v1.Secret) to (core.ConfigMap): unknown conversion\n'), kind.stderr);

    const unknownKind = await run(['patch', 'cm', name, '--type', 'merge', '-p', '{"kind":"Nope"}']);
    assert.ok(
      unknownKind.stderr.endsWith(
        '": no kind "Nope" is registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"\n',
      ),
      unknownKind.stderr,
    );

    const uidPatch = await run(['patch', 'cm', name, '--type', 'merge', '-p', '{"metadata":{"uid":"0000"}}']);
    assert.equal(uidPatch.code, 1);
    assert.equal(
      uidPatch.stderr,
      `The ConfigMap "${name}" is invalid: metadata.uid: Invalid value: "0000": field is immutable\n`,
    );

    // Nothing was stored: describe decodes the object, kind and uid are as created.
    const describe = await run(['describe', 'cm', name]);
    assert.equal(describe.code, 0, describe.stderr);
    assert.deepEqual(await configMap(name), { kind: 'ConfigMap', data: { a: 'b' }, uid });
  });

  test(`kubectl ${version}: replace with another uid is a 409 precondition failure`, async () => {
    const name = `uid-${version.replace('.', '-')}`;
    await createConfigMap(name);
    const got = await kubectl(cp.kubeconfigPath, ['get', 'cm', name, '-o', 'json'], { version });
    const obj = JSON.parse(got.stdout) as { metadata: { uid: string } };
    const stored = obj.metadata.uid;
    obj.metadata.uid = '00000000-0000-0000-0000-000000000000';
    const file = join(cp.dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(obj));
    const r = await kubectl(cp.kubeconfigPath, ['replace', '-f', file], { version });
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      `Error from server (Conflict): error when replacing "${file}": Operation cannot be fulfilled on configmaps "${name}": StorageError: invalid object, Code: 4, Key: /registry/configmaps/default/${name}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: 00000000-0000-0000-0000-000000000000, UID in object meta: ${stored}\n`,
    );
  });

  test(`kubectl ${version}: create refuses wrong types with the decoder's 400 and data over 1 MiB with 422`, async () => {
    const suffix = version.replace('.', '-');
    const bad = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `n-${suffix}` },
      data: { k: 5 },
    });
    const r = await kubectl(cp.kubeconfigPath, ['create', '-f', '-'], { version, input: bad });
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      `Error from server (BadRequest): error when creating "STDIN": ConfigMap in version "v1" cannot be handled as a ConfigMap: ${DATA_NOT_STRING}\n`,
    );

    const file = join(cp.dir, `big-${suffix}.yaml`);
    const yaml = (n: number) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big-${suffix}\ndata:\n  k: ${'x'.repeat(n)}\n`;
    writeFileSync(file, yaml(1024 * 1024 + 1));
    const big = await kubectl(cp.kubeconfigPath, ['create', '-f', file], { version });
    assert.equal(big.code, 1);
    assert.equal(
      big.stderr,
      `The ConfigMap "big-${suffix}" is invalid: []: Too long: may not be more than 1048576 bytes\n`,
    );
    writeFileSync(file, yaml(1024 * 1024));
    const fits = await kubectl(cp.kubeconfigPath, ['create', '-f', file], { version });
    assert.equal(fits.code, 0, fits.stderr);
  });
}

test('the Python client gets the same answers', async () => {
  await createConfigMap('py-cm');
  const script = `
import json, sys
from kubernetes import client, config
from kubernetes.client.rest import ApiException
config.load_kube_config(sys.argv[1])
v1 = client.CoreV1Api()
out = {}
api = client.ApiClient()
def patch(name, body, content_type, manager=None):
    query = [('fieldManager', manager)] if manager else []
    if 'yaml' in content_type:
        body = json.dumps(body)  # the client sends only JSON content types from objects
    api.call_api('/api/v1/namespaces/default/configmaps/' + name, 'PATCH', query_params=query,
                 header_params={'Content-Type': content_type, 'Accept': 'application/json'}, body=body,
                 response_type='object', auth_settings=['BearerToken'], _return_http_data_only=True)
def attempt(key, f):
    try:
        f()
        out[key] = [200, '']
    except ApiException as e:
        out[key] = [e.status, json.loads(e.body)['message']]
attempt('merge', lambda: patch('py-cm', {'data': {'k': 5}}, 'application/merge-patch+json'))
attempt('kind', lambda: patch('py-cm', [{'op': 'replace', 'path': '/kind', 'value': 'Secret'}],
        'application/json-patch+json'))
attempt('uid', lambda: patch('py-cm', {'metadata': {'uid': 'x'}}, 'application/merge-patch+json'))
attempt('applyNoKind', lambda: patch('py-cm', {'metadata': {'name': 'py-cm'}, 'data': {'a': 'c'}},
        'application/apply-patch+yaml', 'py'))
attempt('applyNoKindCreate', lambda: patch('py-new', {'apiVersion': 'v1', 'metadata': {'name': 'py-new'}},
        'application/apply-patch+yaml', 'py'))
attempt('big', lambda: v1.create_namespaced_config_map('default', {'apiVersion': 'v1', 'kind': 'ConfigMap',
        'metadata': {'name': 'py-big'}, 'data': {'a': 'x' * (1024 * 1024), 'b': 'y'}}))
attempt('secret', lambda: v1.create_namespaced_secret('default', {'apiVersion': 'v1', 'kind': 'Secret',
        'metadata': {'name': 'py-s'}, 'data': {'k': 5}}))
attempt('env', lambda: v1.create_namespaced_pod('default', {'apiVersion': 'v1', 'kind': 'Pod',
        'metadata': {'name': 'py-p'}, 'spec': {'containers': [{'name': 'c', 'image': 'i',
        'env': [{'name': 'A', 'value': 5}]}]}}))
attempt('hugeCpu', lambda: v1.create_namespaced_pod('default', {'apiVersion': 'v1', 'kind': 'Pod',
        'metadata': {'name': 'py-q'}, 'spec': {'containers': [{'name': 'c', 'image': 'i',
        'resources': {'limits': {'cpu': '1e1000000'}}}]}}))
cm = v1.read_namespaced_config_map('py-cm', 'default')
out['after'] = [cm.kind, cm.data]
print(json.dumps(out))
`;
  const r = await runPython(cp.kubeconfigPath, script);
  assert.equal(r.code, 0, r.stderr);
  const out = r.json() as Record<string, [number, string] | [string, unknown]>;
  assert.equal(out.merge[0], 422);
  assert.ok(String(out.merge[1]).endsWith(`": ${DATA_NOT_STRING}`), String(out.merge[1]));
  assert.equal(out.kind[0], 422);
  assert.ok(String(out.kind[1]).endsWith('": converting (v1.Secret) to (core.ConfigMap): unknown conversion'));
  assert.deepEqual(out.uid, [
    422,
    'ConfigMap "py-cm" is invalid: metadata.uid: Invalid value: "x": field is immutable',
  ]);
  assert.deepEqual(out.applyNoKind, [400, 'invalid object type: /, Kind=']);
  assert.deepEqual(out.applyNoKindCreate, [400, 'invalid object type: /v1, Kind=']);
  assert.deepEqual(out.big, [422, 'ConfigMap "py-big" is invalid: []: Too long: may not be more than 1048576 bytes']);
  assert.deepEqual(out.secret, [
    400,
    'Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal number into Go struct field Secret.data of type []uint8',
  ]);
  assert.deepEqual(out.env, [
    400,
    'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field EnvVar.spec.containers.env.value of type string',
  ]);
  // Never a 500: the quantity is refused while decoding.
  assert.equal(out.hugeCpu[0], 400);
  assert.match(String(out.hugeCpu[1]), /^Pod in version "v1" cannot be handled as a Pod: /);
  assert.deepEqual(out.after, ['ConfigMap', { a: 'b' }]);
});

test('scale writes decode into an autoscaling/v1 Scale', async () => {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'scaled' },
    spec: {
      selector: { matchLabels: { app: 's' } },
      template: { metadata: { labels: { app: 's' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    },
  };
  assert.equal((await call(cp, 'POST', '/apis/apps/v1/namespaces/default/deployments', deployment)).code, 201);
  const path = '/apis/apps/v1/namespaces/default/deployments/scaled/scale';
  const put = await call(cp, 'PUT', path, {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: { name: 'scaled' },
    spec: { replicas: '3' },
  });
  assert.equal(put.code, 400, put.text);
  assert.equal(
    put.json.message,
    'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32',
  );
  const patch = await call(cp, 'PATCH', path, Buffer.from('{"spec":{"replicas":"3"}}'), {
    'Content-Type': 'application/strategic-merge-patch+json',
  });
  assert.equal(patch.code, 422, patch.text);
  assert.equal(
    patch.json.message,
    ' "" is invalid: patch: Invalid value: "map[spec:map[replicas:3]]": unrecognized type: int32',
  );
  const ok = await call(cp, 'PATCH', path, Buffer.from('{"spec":{"replicas":3}}'), {
    'Content-Type': 'application/merge-patch+json',
  });
  assert.equal(ok.code, 200, ok.text);
});

test('status and apply writes are checked too; valid apply still works', async () => {
  const ns = await call(
    cp,
    'PATCH',
    '/api/v1/namespaces/default/configmaps/applied?fieldManager=t',
    Buffer.from(
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { a: 'b' } }),
    ),
    { 'Content-Type': 'application/apply-patch+yaml' },
  );
  assert.equal(ns.code, 201, ns.text);
  const wrong = await call(
    cp,
    'PATCH',
    '/api/v1/namespaces/default/configmaps/applied?fieldManager=t',
    Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { a: 5 } })),
    { 'Content-Type': 'application/apply-patch+yaml' },
  );
  // structured-merge-diff's error, which kube returns untyped (a bare 500), as the existing
  // apply validation does (managedfields/internal/structuredmerge.go "failed to create typed patch
  // object", naming the configuration's own namespace/name: none here).
  assert.equal(wrong.code, 500);
  assert.equal(
    wrong.json.message,
    'failed to create typed patch object (/applied; /v1, Kind=ConfigMap): .data.a: expected string, got &value.valueUnstructured{Value:5}',
  );

  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'sp' },
    spec: { containers: [{ name: 'c', image: 'i' }] },
  };
  assert.equal((await call(cp, 'POST', '/api/v1/namespaces/default/pods', pod)).code, 201);
  const status = await call(cp, 'PUT', '/api/v1/namespaces/default/pods/sp/status', {
    ...pod,
    status: { startTime: 5 },
  });
  assert.equal(status.code, 400, status.text);
  assert.equal(
    status.json.message,
    'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field PodStatus.status.startTime of type string',
  );
});
