// Hostile and odd input: every failure is a StatusError (400 or 415), never a crash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../../../src/apimachinery/errors/index.ts';
import { decodeProtobuf, decodeProtobufObject } from '../../../../src/kube/server/protobuf/index.ts';
import { SPECIAL } from '../../../../src/kube/server/protobuf/special.ts';
import { isZeroPayload, WireReader } from '../../../../src/kube/server/protobuf/wire.ts';
import { envelope, mapFields, meta, msg, time } from './build.ts';

function status(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  assert.fail('expected a StatusError');
}

const CONTAINER = msg([1, 'web'], [2, 'nginx'], [6, msg([3, 80])]);
const TEMPLATE = msg([2, msg([2, CONTAINER])]);
const GOOD = envelope(
  'apps/v1',
  'Deployment',
  msg([1, meta('web', mapFields(11, { app: 'web' }))], [2, msg([1, 2], [3, TEMPLATE])]),
);

test('varints: negative int32 as ten bytes, values past 2^32, overlong', () => {
  const r = new WireReader(Buffer.from(msg([1, -1], [2, -2147483648], [3, 2 ** 40 + 5], [4, 300])));
  const read = () => (r.tag(), r.varint());
  assert.equal(read(), -1);
  assert.equal(read(), -2147483648);
  assert.equal(read(), 2 ** 40 + 5);
  assert.equal(read(), 300);
  assert.throws(() => new WireReader(Buffer.alloc(11, 0xff)).varint(), /longer than 10 bytes/);
});

test('wrong or missing magic is a 400', () => {
  for (const body of [
    Buffer.alloc(0),
    Buffer.from('k8s'),
    Buffer.from('{"kind":"Namespace"}'),
    Buffer.concat([Buffer.from('k9s\0'), GOOD.subarray(4)]),
  ]) {
    const e = status(() => decodeProtobuf(body));
    assert.equal(e.code, 400);
    assert.match(e.message, /magic/);
  }
});

test('every truncation of a valid body is a 400 or decodes, never another error', () => {
  assert.equal(decodeProtobufObject(GOOD).kind, 'Deployment');
  for (let n = 0; n < GOOD.length; n++) {
    try {
      decodeProtobuf(GOOD.subarray(0, n));
    } catch (e) {
      assert.ok(e instanceof StatusError, `prefix ${n}: ${String(e)}`);
      assert.ok(e.code === 400 || e.code === 415, `prefix ${n}: ${e.code}`);
    }
  }
});

test('random corruption never escapes as a non-Status error', () => {
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed);
  for (let i = 0; i < 3000; i++) {
    const body = Buffer.from(GOOD);
    for (let k = 0; k < 1 + (rand() % 4); k++) body[4 + (rand() % (body.length - 4))] = rand() & 0xff;
    try {
      decodeProtobuf(body);
    } catch (e) {
      assert.ok(e instanceof StatusError, `iteration ${i}: ${String(e)}`);
    }
  }
});

test('a length past the end of the body is a 400', () => {
  // raw claims 2^31 bytes.
  const body = Buffer.concat([Buffer.from('k8s\0', 'latin1'), Buffer.from([0x12, 0x80, 0x80, 0x80, 0x80, 0x08, 0x0a])]);
  const e = status(() => decodeProtobuf(body));
  assert.equal(e.code, 400);
  assert.match(e.message, /exceeds the remaining/);
  const nested = envelope('v1', 'ConfigMap', Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x0a]));
  assert.equal(status(() => decodeProtobuf(nested)).code, 400);
});

test('wrong wire types and groups are a 400', () => {
  // metadata (a message) sent as a varint
  assert.match(status(() => decodeProtobuf(envelope('v1', 'ConfigMap', msg([1, 5])))).message, /wire type 0/);
  // data (a map) sent as a varint
  assert.equal(status(() => decodeProtobuf(envelope('v1', 'ConfigMap', msg([2, 5])))).code, 400);
  // a start-group tag on an unknown field
  assert.equal(status(() => decodeProtobuf(envelope('v1', 'ConfigMap', Buffer.from([0x4b, 0x4c])))).code, 400);
});

test('a kind without tables is a 415 that says what to do', () => {
  const e = status(() => decodeProtobuf(envelope('example.com/v1', 'Widget', msg([1, meta('w')]))));
  assert.equal(e.code, 415);
  assert.equal(e.reason, 'UnsupportedMediaType');
  assert.match(e.message, /cannot decode Widget \(example\.com\/v1\).*application\/json/);
  // The same kind name in another group is a different message.
  assert.equal(status(() => decodeProtobuf(envelope('extensions/v1beta1', 'Ingress', msg()))).code, 415);
});

test('missing kind is a 400, a content encoding or foreign content type a 415', () => {
  assert.equal(status(() => decodeProtobuf(envelope('v1', '', msg()))).code, 400);
  const gz = Buffer.concat([
    Buffer.from('k8s\0', 'latin1'),
    msg([1, msg([1, 'v1'], [2, 'ConfigMap'])], [2, msg()], [3, 'gzip']),
  ]);
  assert.equal(status(() => decodeProtobuf(gz)).code, 415);
  const json = Buffer.concat([
    Buffer.from('k8s\0', 'latin1'),
    msg([1, msg([1, 'v1'], [2, 'ConfigMap'])], [2, msg()], [4, 'application/json']),
  ]);
  assert.equal(status(() => decodeProtobuf(json)).code, 415);
});

test('bad timestamps and embedded JSON are a 400', () => {
  const at = (t: Uint8Array) => envelope('v1', 'ConfigMap', msg([1, meta('x', [[8, t]])]));
  assert.equal(status(() => decodeProtobuf(at(msg([1, 2 ** 45])))).code, 400);
  assert.equal(status(() => decodeProtobuf(at(msg([1, 1], [2, -1])))).code, 400);
  const fields = envelope('v1', 'ConfigMap', msg([1, meta('x', [[17, msg([7, msg([1, '{not json'])])]])]));
  assert.match(status(() => decodeProtobuf(fields)).message, /FieldsV1 does not hold JSON/);
});

test('timestamps: zero Time is left out; MicroTime keeps microseconds', () => {
  const obj = decodeProtobufObject(
    envelope(
      'v1',
      'ConfigMap',
      msg([
        1,
        meta('x', [
          [8, msg([1, 0], [2, 0])],
          [9, time('1999-12-31T23:59:59Z')],
        ]),
      ]),
    ),
  );
  assert.deepEqual(obj.metadata, { name: 'x', deletionTimestamp: '1999-12-31T23:59:59Z' });
  const micro = Buffer.from(time('2024-02-29T12:00:00Z', 123456789));
  assert.equal(SPECIAL.MicroTime(micro, 0, micro.length), '2024-02-29T12:00:00.123456Z');
  assert.equal(SPECIAL.Time(micro, 0, micro.length), '2024-02-29T12:00:00Z');
  const before1970 = Buffer.from(time('1960-01-01T00:00:00Z'));
  assert.equal(SPECIAL.Time(before1970, 0, before1970.length), '1960-01-01T00:00:00Z');
});

test('unknown fields: data is reported by path, zero-valued noise is not', () => {
  const spec = msg(
    [2, msg([1, 'c'], [2, 'img'], [99, 'surprise'])],
    [42, msg([1, 'group'])], // a PodSpec field we have no table for
    [45, msg([1, ''], [2, 0], [3, msg()])], // all zeros, as gogo writes empty structs
  );
  const r = decodeProtobuf(envelope('v1', 'Pod', msg([1, meta('p')], [2, spec], [3, msg([1, ''], [7, msg()])])));
  assert.deepEqual(r.object.spec, { containers: [{ name: 'c', image: 'img' }] });
  assert.deepEqual(r.unknownFields, ['spec.containers[0]#99', 'spec#42']);
});

test('packed repeated ints, repeated message fields merge, last scalar wins', () => {
  // PodSecurityContext.supplementalGroups (4) as one packed run of varints 1, 2, 300.
  const groups = Buffer.from([0x22, 0x04, 0x01, 0x02, 0xac, 0x02]);
  const spec = msg([14, groups], [14, msg([2, 1000])], [3, 'Never'], [3, 'Always']);
  const obj = decodeProtobufObject(envelope('v1', 'Pod', msg([1, meta('p')], [2, spec])));
  assert.deepEqual(obj.spec, {
    securityContext: { supplementalGroups: [1, 2, 300], runAsUser: 1000 },
    restartPolicy: 'Always',
  });
});

test('isZeroPayload', () => {
  const z = (b: Uint8Array) => isZeroPayload(Buffer.from(b), 0, b.length);
  assert.equal(z(msg()), true);
  assert.equal(z(msg([1, ''], [2, 0], [3, msg([1, false])])), true);
  assert.equal(z(msg([1, 'x'])), false);
  assert.equal(z(msg([3, msg([1, 1])])), false);
  assert.equal(z(Buffer.from([0x0a, 0x05])), false);
});
