// DeleteOptions sent in a DELETE or deletecollection body, as kubectl and client-go send them.
// kube-apiserver's rule (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/delete.go,
// DeleteResource and DeleteCollection): a non-empty body is decoded as the whole DeleteOptions
// (JSON, YAML or protobuf) and the query is not read; without a body the options come from the
// query; then ValidateDeleteOptions (apimachinery/pkg/apis/meta/v1/validation/validation.go).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, eventually, type TestCluster } from '../../../helpers/control-plane.ts';
import { call } from '../../../helpers/https.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import { runPython } from '../../../helpers/python.ts';
import { envelope, msg } from '../protobuf/build.ts';

const NS = 'delopts';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const PODS = `/api/v1/namespaces/${NS}/pods`;
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster({ nodes: 0 });
  assert.equal((await call(cp, 'POST', '/api/v1/namespaces', { metadata: { name: NS } })).code, 201);
  // A Node with no kubelet behind it: pods bound to it keep a pending graceful deletion.
  assert.equal((await call(cp, 'POST', '/api/v1/nodes', { metadata: { name: 'no-kubelet' } })).code, 201);
});
after(() => cp.stop());

async function configMap(name: string, extra: Record<string, unknown> = {}): Promise<Record<string, string>> {
  const r = await call(cp, 'POST', CM, { metadata: { name, ...extra }, data: { a: '1' } });
  assert.equal(r.code, 201, r.text);
  return r.json.metadata as Record<string, string>;
}

async function resourceVersionOf(path: string): Promise<string | undefined> {
  const r = await call(cp, 'GET', path);
  return r.code === 200 ? (r.json.metadata as Record<string, string>).resourceVersion : undefined;
}

/** A pod bound to a node without a kubelet, so a graceful deletion stays pending. */
async function boundPod(name: string): Promise<void> {
  const r = await call(cp, 'POST', PODS, {
    metadata: { name },
    spec: { nodeName: 'no-kubelet', containers: [{ name: 'c', image: 'nginx' }] },
  });
  assert.equal(r.code, 201, r.text);
}

for (const version of ['1.27', '1.33']) {
  test(`kubectl ${version} delete --dry-run=server leaves the object`, async () => {
    const name = `dry-${version.replace('.', '')}`;
    const { resourceVersion } = await configMap(name);
    const r = await kubectl(cp.kubeconfigPath, ['delete', 'configmap', name, '-n', NS, '--dry-run=server'], {
      version,
    });
    assert.equal(r.code, 0, r.stderr);
    // kubectl's delete prints its "(server dry run)" suffix for a server-side dry run.
    assert.equal(r.stdout, `configmap "${name}" deleted (server dry run)\n`);
    assert.equal(await resourceVersionOf(`${CM}/${name}`), resourceVersion);
  });
}

describe('a dry run in the body persists nothing', () => {
  test('DELETE of one object (JSON body, as kubectl 1.33 sends it)', async () => {
    const { resourceVersion } = await configMap('body-dry');
    const r = await call(cp, 'DELETE', `${CM}/body-dry`, { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] });
    assert.equal(r.code, 200, r.text);
    assert.equal((r.json.metadata as Record<string, string>).name, 'body-dry');
    assert.equal(await resourceVersionOf(`${CM}/body-dry`), resourceVersion);
  });

  test('deletecollection', async () => {
    await configMap('coll-1', { labels: { set: 'dry' } });
    await configMap('coll-2', { labels: { set: 'dry' } });
    const r = await call(cp, 'DELETE', `${CM}?labelSelector=set%3Ddry`, {
      kind: 'DeleteOptions',
      apiVersion: 'meta.k8s.io/v1',
      dryRun: ['All'],
    });
    assert.equal(r.code, 200, r.text);
    assert.equal((r.json.items as unknown[]).length, 2);
    assert.ok(await resourceVersionOf(`${CM}/coll-1`));
    assert.ok(await resourceVersionOf(`${CM}/coll-2`));
  });

  test('YAML and protobuf bodies', async () => {
    await configMap('yaml-dry');
    const yaml = await call(
      cp,
      'DELETE',
      `${CM}/yaml-dry`,
      Buffer.from('kind: DeleteOptions\napiVersion: v1\ndryRun:\n- All\n'),
      {
        'Content-Type': 'application/yaml',
      },
    );
    assert.equal(yaml.code, 200, yaml.text);
    // DeleteOptions field 5 is dryRun (apimachinery/pkg/apis/meta/v1/generated.proto).
    const body = envelope('meta.k8s.io/v1', 'DeleteOptions', msg([5, 'All']));
    const pb = await call(cp, 'DELETE', `${CM}/yaml-dry`, body, { 'Content-Type': PROTOBUF });
    assert.equal(pb.code, 200, pb.text);
    assert.ok(await resourceVersionOf(`${CM}/yaml-dry`));
  });

  test('the Python client with V1DeleteOptions(dry_run=["All"])', async () => {
    await configMap('py-dry');
    const r = await runPython(
      cp.kubeconfigPath,
      `
import json, sys
from kubernetes import client, config
config.load_kube_config(sys.argv[1])
v1 = client.CoreV1Api()
v1.delete_namespaced_config_map("py-dry", "${NS}", body=client.V1DeleteOptions(dry_run=["All"]))
print(json.dumps({"still": v1.read_namespaced_config_map("py-dry", "${NS}").metadata.name}))
`,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.json(), { still: 'py-dry' });
  });
});

describe('body fields take effect', () => {
  test('gracePeriodSeconds', async () => {
    await boundPod('grace-5');
    const five = await call(cp, 'DELETE', `${PODS}/grace-5`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      gracePeriodSeconds: 5,
    });
    assert.equal(five.code, 200, five.text);
    assert.equal((five.json.metadata as Record<string, unknown>).deletionGracePeriodSeconds, 5);
    await boundPod('grace-0');
    const zero = await call(cp, 'DELETE', `${PODS}/grace-0`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      gracePeriodSeconds: 0,
    });
    assert.equal(zero.code, 200, zero.text);
    assert.equal((await call(cp, 'GET', `${PODS}/grace-0`)).code, 404);
  });

  test('with a body, the query is not read', async () => {
    await boundPod('query-ignored');
    const r = await call(cp, 'DELETE', `${PODS}/query-ignored?gracePeriodSeconds=0`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
    });
    assert.equal(r.code, 200, r.text);
    assert.equal((r.json.metadata as Record<string, unknown>).deletionGracePeriodSeconds, 30);
  });

  test('preconditions: a uid or resourceVersion mismatch is a 409 Conflict', async () => {
    const { uid, resourceVersion } = await configMap('pre');
    const byUid = await call(cp, 'DELETE', `${CM}/pre`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      preconditions: { uid: 'not-the-uid' },
    });
    // storage/interfaces.go Preconditions.Check, made a Conflict by the registry.
    assert.equal(byUid.code, 409, byUid.text);
    assert.equal(byUid.json.reason, 'Conflict');
    assert.equal(
      byUid.json.message,
      `Operation cannot be fulfilled on configmaps "pre": Precondition failed: UID in precondition: not-the-uid, UID in object meta: ${uid}`,
    );
    const byRv = await call(cp, 'DELETE', `${CM}/pre`, { preconditions: { resourceVersion: '1' } });
    assert.equal(byRv.code, 409, byRv.text);
    assert.equal(
      byRv.json.message,
      `Operation cannot be fulfilled on configmaps "pre": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${resourceVersion}`,
    );
    const matching = await call(cp, 'DELETE', `${CM}/pre`, { preconditions: { uid, resourceVersion } });
    assert.equal(matching.code, 200, matching.text);
    assert.equal((await call(cp, 'GET', `${CM}/pre`)).code, 404);
  });

  for (const [policy, body] of [
    ['propagationPolicy Orphan', { propagationPolicy: 'Orphan' }],
    ['orphanDependents true', { orphanDependents: true }],
  ] as const) {
    test(`${policy} leaves the dependents`, async () => {
      const owner = `owner-${policy.split(' ')[0].toLowerCase()}`;
      const { uid } = await configMap(owner);
      await configMap(`${owner}-dep`, {
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid }],
      });
      const r = await call(cp, 'DELETE', `${CM}/${owner}`, { kind: 'DeleteOptions', apiVersion: 'v1', ...body });
      assert.equal(r.code, 200, r.text);
      assert.deepEqual((r.json.metadata as Record<string, unknown>).finalizers, ['orphan']);
      await eventually(async () => (await call(cp, 'GET', `${CM}/${owner}`)).code === 404, { what: 'owner gone' });
      const dep = await call(cp, 'GET', `${CM}/${owner}-dep`);
      assert.equal(dep.code, 200);
      assert.equal((dep.json.metadata as Record<string, unknown>).ownerReferences, undefined);
    });
  }
});

describe('ValidateDeleteOptions: 422 Invalid DeleteOptions.meta.k8s.io', () => {
  const cases: Array<
    [string, Record<string, unknown>, string, Array<{ reason: string; message: string; field: string }>]
  > = [
    [
      'an unknown propagationPolicy',
      { propagationPolicy: 'Sideways' },
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
      [
        {
          reason: 'FieldValueNotSupported',
          message: 'Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
          field: 'propagationPolicy',
        },
      ],
    ],
    [
      'orphanDependents with propagationPolicy',
      { orphanDependents: false, propagationPolicy: 'Background' },
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set',
      [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set',
          field: 'propagationPolicy',
        },
      ],
    ],
    [
      'a dryRun other than All',
      { dryRun: ['Bogus'] },
      'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"',
      [
        {
          reason: 'FieldValueNotSupported',
          message: 'Unsupported value: []string{"Bogus"}: supported values: "All"',
          field: 'dryRun',
        },
      ],
    ],
  ];
  for (const [what, body, message, causes] of cases) {
    test(what, async () => {
      await configMap(`invalid-${causes[0].field.toLowerCase()}-${what.length}`);
      const name = `invalid-${causes[0].field.toLowerCase()}-${what.length}`;
      const r = await call(cp, 'DELETE', `${CM}/${name}`, { kind: 'DeleteOptions', apiVersion: 'v1', ...body });
      assert.equal(r.code, 422, r.text);
      assert.deepEqual(r.json, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message,
        reason: 'Invalid',
        details: { group: 'meta.k8s.io', kind: 'DeleteOptions', causes },
        code: 422,
      });
      assert.ok(await resourceVersionOf(`${CM}/${name}`), 'the object stays');
    });
  }

  test('a body of another kind is refused and deletes nothing', async () => {
    await configMap('wrong-kind');
    const r = await call(cp, 'DELETE', `${CM}/wrong-kind`, { kind: 'ConfigMap', apiVersion: 'v1' });
    assert.equal(r.code, 400, r.text);
    assert.match(String(r.json.message), /^no kind "ConfigMap" is registered for version "v1"/);
    assert.ok(await resourceVersionOf(`${CM}/wrong-kind`));
  });
});
