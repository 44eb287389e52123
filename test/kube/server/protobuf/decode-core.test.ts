// Core/v1 kinds and ObjectMeta decoded from bytes built with protobufjs' Writer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeProtobuf, decodeProtobufObject } from '../../../../src/kube/server/protobuf/index.ts';
import { messages } from '../../../../src/kube/server/protobuf/decode.ts';
import { envelope, mapFields, meta, msg, time } from './build.ts';

test('every table parses and refers only to known types', () => {
  assert.ok(messages().size > 100);
});

test('Namespace with the zero-valued fields gogo always writes', () => {
  // What kubectl 1.33 sends for `create namespace foo`: empty strings, generation 0, a zero Time,
  // an empty spec and a status with an empty phase.
  const body = Buffer.from(
    '6b3873000a0f0a02763112094e616d657370616365121b0a130a03666f6f12001a0022002a00320038004200120' + '01a020a001a002200',
    'hex',
  );
  assert.deepEqual(decodeProtobuf(body), {
    object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'foo' }, spec: {}, status: {} },
    unknownFields: [],
  });
});

test('ObjectMeta: labels, annotations, ownerReferences, finalizers, managedFields, timestamps', () => {
  const fieldsV1 = JSON.stringify({ 'f:data': { 'f:a': {} } });
  const om = meta('x', [
    [2, 'gen-'],
    [3, 'ns1'],
    [5, 'uid-1'],
    [6, '42'],
    [7, 3],
    [8, time('2024-05-06T07:08:09Z', 500)],
    [10, 30],
    ...mapFields(11, { app: 'web', tier: '' }),
    ...mapFields(12, { note: 'hi' }),
    [13, msg([1, 'Deployment'], [3, 'web'], [4, 'u2'], [5, 'apps/v1'], [6, true], [7, false])],
    [14, 'a/b'],
    [14, 'c'],
    [
      17,
      msg(
        [1, 'kubectl'],
        [2, 'Update'],
        [3, 'v1'],
        [4, time('2024-01-02T03:04:05Z')],
        [6, 'FieldsV1'],
        [7, msg([1, Buffer.from(fieldsV1)])],
      ),
    ],
  ]);
  const obj = decodeProtobufObject(envelope('v1', 'ConfigMap', msg([1, om])));
  assert.deepEqual(obj.metadata, {
    name: 'x',
    generateName: 'gen-',
    namespace: 'ns1',
    uid: 'uid-1',
    resourceVersion: '42',
    generation: 3,
    creationTimestamp: '2024-05-06T07:08:09Z',
    deletionGracePeriodSeconds: 30,
    labels: { app: 'web', tier: '' },
    annotations: { note: 'hi' },
    ownerReferences: [
      {
        kind: 'Deployment',
        name: 'web',
        uid: 'u2',
        apiVersion: 'apps/v1',
        controller: true,
        blockOwnerDeletion: false,
      },
    ],
    finalizers: ['a/b', 'c'],
    managedFields: [
      {
        manager: 'kubectl',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2024-01-02T03:04:05Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:a': {} } },
      },
    ],
  });
});

test('ConfigMap data, binaryData and immutable', () => {
  const raw = msg(
    [1, meta('cm')],
    ...mapFields(2, { a: '1', b: 'two' }),
    ...mapFields(3, { bin: Buffer.from([0, 1, 255]) }),
    [4, false],
  );
  assert.deepEqual(decodeProtobufObject(envelope('v1', 'ConfigMap', raw)), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cm' },
    data: { a: '1', b: 'two' },
    binaryData: { bin: 'AAH/' },
    // immutable is a *bool: a false that was sent is kept.
    immutable: false,
  });
});

test('Secret data bytes become base64; stringData and type stay strings', () => {
  const secret = Buffer.from('pässwörd\n\0', 'utf8');
  const raw = msg(
    [1, meta('s')],
    ...mapFields(2, { password: secret }),
    [3, 'Opaque'],
    ...mapFields(4, { user: 'me' }),
  );
  const obj = decodeProtobufObject(envelope('v1', 'Secret', raw));
  assert.deepEqual(obj.data, { password: secret.toString('base64') });
  assert.equal(Buffer.from((obj.data as Record<string, string>).password, 'base64').toString('utf8'), 'pässwörd\n\0');
  assert.deepEqual(obj.stringData, { user: 'me' });
  assert.equal(obj.type, 'Opaque');
});

test('ServiceAccount secrets, imagePullSecrets and automountServiceAccountToken', () => {
  const raw = msg([1, meta('sa')], [2, msg([3, 'tok'])], [3, msg([1, 'regcred'])], [4, false]);
  assert.deepEqual(decodeProtobufObject(envelope('v1', 'ServiceAccount', raw)), {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'sa' },
    secrets: [{ name: 'tok' }],
    imagePullSecrets: [{ name: 'regcred' }],
    automountServiceAccountToken: false,
  });
});

test('Service ports with int and string targetPort, selector, type', () => {
  const port = (name: string, p: number, target: Uint8Array) =>
    msg([1, name], [2, 'TCP'], [3, p], [4, target], [5, 0], [6, '']);
  const spec = msg(
    [1, port('http', 80, msg([1, 0], [2, 8080], [3, '']))],
    [1, port('named', 443, msg([1, 1], [2, 0], [3, 'https']))],
    ...mapFields(2, { app: 'web' }),
    [3, 'None'],
    [4, 'ClusterIP'],
    [7, ''],
  );
  const obj = decodeProtobufObject(envelope('v1', 'Service', msg([1, meta('svc')], [2, spec])));
  assert.deepEqual(obj.spec, {
    ports: [
      // appProtocol is a *string: an empty one that was sent is kept, as Go's JSON would.
      { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, appProtocol: '' },
      { name: 'named', protocol: 'TCP', port: 443, targetPort: 'https', appProtocol: '' },
    ],
    selector: { app: 'web' },
    clusterIP: 'None',
    type: 'ClusterIP',
  });
});

test('ResourceQuota spec.hard quantities and scopes', () => {
  const spec = msg(...mapFields(1, { pods: msg([1, '2']), 'requests.cpu': msg([1, '500m']) }), [2, 'NotTerminating']);
  const obj = decodeProtobufObject(envelope('v1', 'ResourceQuota', msg([1, meta('q')], [2, spec])));
  assert.deepEqual(obj.spec, { hard: { pods: '2', 'requests.cpu': '500m' }, scopes: ['NotTerminating'] });
});
