// The CRD schema DSL's int-or-string, quantity and preserve-unknown-fields builders emit what
// controller-gen emits for intstr.IntOrString, resource.Quantity and runtime.RawExtension-like
// fields (sigs.k8s.io/controller-tools pkg/crd/known_types.go).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { s, type Static } from '../../../src/apimachinery/index.ts';

describe('schema DSL', () => {
  it('int-or-string is the anyOf of both types with the kube extension', () => {
    assert.deepEqual(s.intOrString({ description: 'Port.' }).json, {
      anyOf: [{ type: 'integer' }, { type: 'string' }],
      'x-kubernetes-int-or-string': true,
      description: 'Port.',
    });
  });

  it('quantity is int-or-string whose string form follows the Quantity grammar', () => {
    const q = s.quantity().json;
    assert.equal(q['x-kubernetes-int-or-string'], true);
    const re = new RegExp(q.pattern!);
    for (const ok of ['100m', '1.5', '64Mi', '1e3', '+2', '.5', '2Gi']) assert.ok(re.test(ok), ok);
    for (const bad of ['lots', '1.5.5', 'Mi', '64MiB', '']) assert.ok(!re.test(bad), bad);
  });

  it('unknown fields are preserved where the schema says so, with the reader-given type', () => {
    const raw = s.unknown<Record<string, string>>();
    assert.deepEqual(raw.json, { 'x-kubernetes-preserve-unknown-fields': true });
    const open = s.object({ name: s.string() }, { required: ['name'], preserveUnknownFields: true });
    assert.deepEqual(open.json, {
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
      'x-kubernetes-preserve-unknown-fields': true,
    });
    const value: Static<typeof open> = { name: 'x' };
    assert.equal(value.name, 'x');
  });
});
