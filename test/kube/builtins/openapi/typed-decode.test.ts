// The typed-decoding walker over the built-in models, in the words of kube's three decoders:
// encoding/json's UnmarshalTypeError (`json: cannot unmarshal X into Go struct field
// <innermost struct>.<field stack> of type T`, decode.go addErrorContext), the unstructured
// converter's (apimachinery/pkg/runtime/converter.go fromUnstructured) and structured-merge-diff's
// typed validation (`.path: expected string, got &value.valueUnstructured{Value:5}`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeErrors } from '../../../../src/kube/builtins/index.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';

const pod = (container: JsonObject, spec: JsonObject = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p' },
  spec: { containers: [{ name: 'c', image: 'i', ...container }], ...spec },
});

test('a pod env value that is a number', () => {
  const p = pod({ env: [{ name: 'A', value: 5 }] });
  assert.deepEqual(decodeErrors('', 'v1', 'Pod', p, 'json'), [
    'json: cannot unmarshal number into Go struct field EnvVar.spec.containers.env.value of type string',
  ]);
  assert.deepEqual(decodeErrors('', 'v1', 'Pod', p, 'unstructured'), ['cannot convert int64 to string']);
  assert.deepEqual(decodeErrors('', 'v1', 'Pod', p, 'apply'), [
    '.spec.containers[name="c"].env[name="A"].value: expected string, got &value.valueUnstructured{Value:5}',
  ]);
});

test('Deployment replicas as a string, and a float', () => {
  const d = (replicas: unknown): JsonObject =>
    ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas } }) as JsonObject;
  assert.deepEqual(decodeErrors('apps', 'v1', 'Deployment', d('3'), 'json'), [
    'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
  ]);
  assert.deepEqual(decodeErrors('apps', 'v1', 'Deployment', d('3'), 'unstructured'), ['unrecognized type: int32']);
  assert.deepEqual(decodeErrors('apps', 'v1', 'Deployment', d('3'), 'apply'), [
    '.spec.replicas: expected numeric (int or float), got string',
  ]);
  assert.deepEqual(decodeErrors('apps', 'v1', 'Deployment', d(1.5), 'json'), [
    'json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32',
  ]);
  assert.deepEqual(decodeErrors('apps', 'v1', 'Deployment', d(1.5), 'unstructured'), [
    'cannot convert float64 to int32',
  ]);
  assert.deepEqual(decodeErrors('apps', 'v1', 'Deployment', d(2 ** 31), 'json'), [
    'json: cannot unmarshal number 2147483648 into Go struct field DeploymentSpec.spec.replicas of type int32',
  ]);
  assert.deepEqual(decodeErrors('apps', 'v1', 'Deployment', d(3), 'json'), []);
  assert.deepEqual(decodeErrors('apps', 'v1', 'Deployment', d(null), 'json'), []);
});

test('Service port as a string; targetPort takes both', () => {
  const svc = (port: unknown, targetPort: unknown): JsonObject =>
    ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { ports: [{ port, targetPort }] },
    }) as JsonObject;
  assert.deepEqual(decodeErrors('', 'v1', 'Service', svc('80', 'http'), 'json'), [
    'json: cannot unmarshal string into Go struct field ServicePort.spec.ports.port of type int32',
  ]);
  assert.deepEqual(decodeErrors('', 'v1', 'Service', svc(80, 'http'), 'json'), []);
  assert.deepEqual(decodeErrors('', 'v1', 'Service', svc(80, 8080), 'json'), []);
  // IntOrString.UnmarshalJSON decodes a non-string into its int32 and returns the error at once.
  assert.deepEqual(decodeErrors('', 'v1', 'Service', svc(80, true), 'json'), [
    'json: cannot unmarshal bool into Go struct field ServicePort.spec.ports.targetPort of type int32',
  ]);
  assert.deepEqual(decodeErrors('', 'v1', 'Service', svc(80, true), 'unstructured'), [
    'json: cannot unmarshal bool into Go value of type int32',
  ]);
  // A protocol is a named string type.
  const udp = svc(80, 80);
  ((udp.spec as JsonObject).ports as JsonObject[])[0].protocol = 7;
  assert.deepEqual(decodeErrors('', 'v1', 'Service', udp, 'json'), [
    'json: cannot unmarshal number into Go struct field ServicePort.spec.ports.protocol of type v1.Protocol',
  ]);
  assert.deepEqual(decodeErrors('', 'v1', 'Service', udp, 'unstructured'), ['cannot convert int64 to v1.Protocol']);
});

test('Secret and ConfigMap data', () => {
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { k: 5 } };
  assert.deepEqual(decodeErrors('', 'v1', 'Secret', secret, 'json'), [
    'json: cannot unmarshal number into Go struct field Secret.data of type []uint8',
  ]);
  assert.deepEqual(decodeErrors('', 'v1', 'Secret', { ...secret, data: 5 }, 'json'), [
    'json: cannot unmarshal number into Go struct field Secret.data of type map[string][]uint8',
  ]);
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 5 } };
  assert.deepEqual(decodeErrors('', 'v1', 'ConfigMap', cm, 'json'), [
    'json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
  ]);
  assert.deepEqual(decodeErrors('', 'v1', 'ConfigMap', { ...cm, data: { k: { a: 'b' } } }, 'json'), [
    'json: cannot unmarshal object into Go struct field ConfigMap.data of type string',
  ]);
  assert.deepEqual(decodeErrors('', 'v1', 'ConfigMap', { ...cm, data: 'x' }, 'unstructured'), [
    'cannot restore map from string',
  ]);
  assert.deepEqual(decodeErrors('', 'v1', 'ConfigMap', { ...cm, data: { k: 'v', n: null } }, 'json'), []);
  assert.deepEqual(decodeErrors('', 'v1', 'ConfigMap', { ...cm, metadata: { labels: { a: 1 } } }, 'json'), [
    'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
  ]);
});

test('quantities decode through resource.Quantity, which stops decoding at its error', () => {
  const bad = pod({ env: [{ name: 'A', value: 5 }], resources: { limits: { cpu: 'abc' } } });
  assert.deepEqual(decodeErrors('', 'v1', 'Pod', bad, 'json'), [
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
  ]);
  assert.deepEqual(
    decodeErrors('', 'v1', 'Pod', pod({ resources: { limits: { cpu: 2, memory: '1Gi' } } }), 'json'),
    [],
  );
  const [huge] = decodeErrors('', 'v1', 'Pod', pod({ resources: { requests: { cpu: '1e1000000' } } }), 'json');
  assert.ok(huge, 'a quantity too large to compute with does not decode');
});

test('open and free-form parts accept anything; unknown fields are not this walker’s', () => {
  const p = pod({ securityContext: { unknownThing: 5, privileged: true } }, { somethingNew: 1 });
  (p as { status?: unknown }).status = { anything: [1, 'x'] };
  (p.metadata as JsonObject).managedFields = [{ manager: 'm', fieldsV1: { 'f:x': 5 } }];
  assert.deepEqual(decodeErrors('', 'v1', 'Pod', p, 'json'), []);
  assert.deepEqual(decodeErrors('', 'v1', 'Endpoints', { subsets: 5 }, 'json'), []);
  const crd = { spec: { versions: [{ schema: { openAPIV3Schema: { type: 'object', default: 5, enum: [1] } } }] } };
  assert.deepEqual(decodeErrors('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', crd, 'json'), []);
});
