import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileCrdVersion } from '../../../../src/kube/crd/index.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { lines, specSchema, widgetCrd } from '../fixtures.ts';

function validate(properties: JsonObject, spec: JsonObject, specExtra: JsonObject = {}) {
  const compiled = compileCrdVersion(widgetCrd(specSchema(properties, specExtra)), 'v1');
  return compiled.validate({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec });
}

test('type mismatch: kube-openapi wording, the JSON type as the bad value, FieldValueTypeInvalid', () => {
  assert.deepEqual(validate({ replicas: { type: 'integer' } }, { replicas: 'three' }), [
    {
      field: 'spec.replicas',
      reason: 'FieldValueTypeInvalid',
      message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    },
  ]);
});

test('type mismatch with a format: kube names the format and the Go format of the value', () => {
  assert.deepEqual(lines(validate({ replicas: { type: 'integer', format: 'int32' } }, { replicas: true })), [
    'spec.replicas: Invalid value: "": spec.replicas in body must be of type int32: ""',
  ]);
});

test('a fractional number for an integer also fails kube 1.36 range check (field <nil>)', () => {
  assert.deepEqual(lines(validate({ replicas: { type: 'integer' } }, { replicas: 1.5 })), [
    'spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"',
    '<nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.replicas',
  ]);
});

test('int32 range', () => {
  assert.deepEqual(lines(validate({ replicas: { type: 'integer', format: 'int32' } }, { replicas: 2147483648 })), [
    '<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.replicas',
  ]);
});

test('required, at the root and nested', () => {
  const errs = validate({ image: { type: 'string' } }, {}, { required: ['image'] });
  assert.deepEqual(errs, [{ field: 'spec.image', reason: 'FieldValueRequired', message: 'Required value' }]);
  const compiled = compileCrdVersion(
    widgetCrd({ type: 'object', required: ['spec'], properties: { spec: { type: 'object' } } }),
    'v1',
  );
  assert.deepEqual(
    lines(compiled.validate({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } })),
    ['spec: Required value'],
  );
});

test('enum: FieldValueNotSupported listing the values (non-strings as JSON)', () => {
  assert.deepEqual(validate({ mode: { type: 'string', enum: ['Fast', 'Slow'] } }, { mode: 'Medium' }), [
    {
      field: 'spec.mode',
      reason: 'FieldValueNotSupported',
      message: 'Unsupported value: "Medium": supported values: "Fast", "Slow"',
    },
  ]);
  assert.deepEqual(lines(validate({ n: { type: 'integer', enum: [1, 2] } }, { n: 3 })), [
    'spec.n: Unsupported value: 3: supported values: "1", "2"',
  ]);
});

test('minimum, maximum and exclusive bounds', () => {
  const props = {
    a: { type: 'integer', minimum: 1 },
    b: { type: 'integer', maximum: 10 },
    c: { type: 'number', maximum: 1000000, exclusiveMaximum: true },
    d: { type: 'number', minimum: 0.5, exclusiveMinimum: true },
  };
  assert.deepEqual(lines(validate(props, { a: 0, b: 11, c: 1000000, d: 0.5 })), [
    'spec.a: Invalid value: 0: spec.a in body should be greater than or equal to 1',
    'spec.b: Invalid value: 11: spec.b in body should be less than or equal to 10',
    'spec.c: Invalid value: 1000000: spec.c in body should be less than 1000000',
    'spec.d: Invalid value: 0.5: spec.d in body should be greater than 0.5',
  ]);
});

test('float bounds print as Go prints float64', () => {
  assert.deepEqual(lines(validate({ f: { type: 'number', maximum: 1000000 } }, { f: 1000000.5 })), [
    'spec.f: Invalid value: 1.0000005e+06: spec.f in body should be less than or equal to 1e+06',
  ]);
});

test('strings: maxLength is Too long; minLength and pattern are Invalid; kube stops at the first', () => {
  const props = {
    name: { type: 'string', maxLength: 5, pattern: '^[a-z]+$' },
    short: { type: 'string', minLength: 3 },
    code: { type: 'string', pattern: '^[a-z]+$' },
  };
  assert.deepEqual(validate(props, { name: 'ABCDEFG', short: 'ab', code: 'A1' }), [
    { field: 'spec.name', reason: 'FieldValueTooLong', message: 'Too long: may not be more than 5 bytes' },
    {
      field: 'spec.short',
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "ab": spec.short in body should be at least 3 chars long',
    },
    {
      field: 'spec.code',
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "A1": spec.code in body should match \'^[a-z]+$\'',
    },
  ]);
});

test('Go regexp syntax in patterns', () => {
  assert.deepEqual(validate({ a: { type: 'string', pattern: '(?i)^[[:alpha:]]+\\z' } }, { a: 'AbC' }), []);
  assert.equal(validate({ a: { type: 'string', pattern: '(?i)^[[:alpha:]]+\\z' } }, { a: 'A1' }).length, 1);
});

test('int-or-string: kube reports the type, the anyOf failure (field <nil>) and the first branch', () => {
  const port = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
  assert.deepEqual(validate({ port }, { port: 8080 }), []);
  assert.deepEqual(validate({ port }, { port: 'http' }), []);
  assert.deepEqual(lines(validate({ port }, { port: true })), [
    'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
    '<nil>: Invalid value: "": "spec.port" must validate at least one schema (anyOf)',
    'spec.port: Invalid value: "boolean": spec.port in body must be of type integer: "boolean"',
  ]);
});

test('nullable allows null; otherwise null is a type error', () => {
  const props = { a: { type: 'string', nullable: true }, b: { type: 'string' } };
  assert.deepEqual(lines(validate(props, { a: null, b: null })), [
    'spec.b: Invalid value: "null": spec.b in body must be of type string: "null"',
  ]);
});

test('a nullable enum still checks null against the values, as kube does', () => {
  assert.deepEqual(lines(validate({ a: { type: 'string', nullable: true, enum: ['x'] } }, { a: null })), [
    'spec.a: Unsupported value: null: supported values: "x"',
  ]);
});

test('arrays and maps: item paths, too many, too few', () => {
  const props = {
    list: { type: 'array', minItems: 2, maxItems: 3, items: { type: 'string' } },
    one: { type: 'array', minItems: 2, items: { type: 'string' } },
    labels: { type: 'object', maxProperties: 1, additionalProperties: { type: 'integer' } },
  };
  assert.deepEqual(lines(validate(props, { list: ['a', 1, 'c', 'd'], one: ['a'], labels: { x: 'y', z: 1 } })), [
    'spec.list[1]: Invalid value: "integer": spec.list[1] in body must be of type string: "integer"',
    'spec.list: Too many: 4: must have at most 3 items',
    'spec.one: Invalid value: 1: spec.one in body should have at least 2 items',
    'spec.labels: Too many: 2: must have at most 1 item',
    'spec.labels.x: Invalid value: "string": spec.labels.x in body must be of type integer: "string"',
  ]);
});

test('formats: supported ones are checked, unknown ones ignored', () => {
  const props = {
    when: { type: 'string', format: 'date-time' },
    id: { type: 'string', format: 'uuid' },
    other: { type: 'string', format: 'my-own-format' },
  };
  assert.deepEqual(
    validate(props, { when: '2024-02-29T10:00:00Z', id: '1b4e28ba-2fa1-11d2-883f-0016d3cca427', other: 'x' }),
    [],
  );
  assert.deepEqual(lines(validate(props, { when: '2023-02-29T10:00:00Z', id: 'nope', other: 'x' })), [
    'spec.when: Invalid value: "2023-02-29T10:00:00Z": spec.when in body must be of type date-time: "2023-02-29T10:00:00Z"',
    'spec.id: Invalid value: "nope": spec.id in body must be of type uuid: "nope"',
  ]);
});

test('oneOf, allOf and not report their own message, field <nil>', () => {
  const props = {
    o: {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      oneOf: [{ required: ['a'] }, { required: ['b'] }],
    },
    al: { type: 'string', allOf: [{ minLength: 3 }, { pattern: '^x' }] },
    n: { type: 'string', not: { enum: ['bad'] } },
  };
  assert.deepEqual(lines(validate(props, { o: { a: 'x', b: 'y' }, al: 'ab', n: 'bad' })), [
    '<nil>: Invalid value: "": "spec.o" must validate one and only one schema (oneOf). Found 2 valid alternatives',
    'spec.al: Invalid value: "ab": spec.al in body should be at least 3 chars long',
    'spec.al: Invalid value: "ab": spec.al in body should match \'^x\'',
    '<nil>: Invalid value: "": "spec.al" must validate all the schemas (allOf). None validated',
    '<nil>: Invalid value: "": "spec.n" must not validate the schema (not)',
  ]);
  assert.deepEqual(lines(validate(props, { o: {} })), [
    '<nil>: Invalid value: "": "spec.o" must validate one and only one schema (oneOf). Found none valid',
    'spec.o.a: Required value',
  ]);
});

test('x-kubernetes-list-type map and set: duplicates are FieldValueDuplicate at the repeat', () => {
  const props = {
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, port: { type: 'integer' } },
      },
    },
    pairs: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['a', 'b'],
      items: { type: 'object', required: ['a', 'b'], properties: { a: { type: 'string' }, b: { type: 'integer' } } },
    },
    tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
  };
  const spec = {
    ports: [{ name: 'http', port: 80 }, { name: 'http', port: 8080 }, { name: 'https' }],
    pairs: [
      { a: 'x', b: 1 },
      { a: 'x', b: 2 },
      { b: 1, a: 'x' },
    ],
    tags: ['a', 'b', 'a', 'a'],
  };
  assert.deepEqual(validate(props, spec), [
    { field: 'spec.ports[1]', reason: 'FieldValueDuplicate', message: 'Duplicate value: {"name":"http"}' },
    { field: 'spec.pairs[2]', reason: 'FieldValueDuplicate', message: 'Duplicate value: {"a":"x","b":1}' },
    { field: 'spec.tags[2]', reason: 'FieldValueDuplicate', message: 'Duplicate value: "a"' },
  ]);
});

test('embedded resources need apiVersion and kind', () => {
  const props = {
    template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
  };
  assert.deepEqual(lines(validate(props, { template: { kind: 'pod spec' } })), [
    'spec.template.apiVersion: Required value',
    "spec.template.kind: Invalid value: \"pod spec\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
  ]);
});

test('scale subresource: replicas must be a non-negative int32', () => {
  const crd = widgetCrd(
    { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    {
      subresources: {
        scale: {
          specReplicasPath: '.spec.replicas',
          statusReplicasPath: '.status.replicas',
          labelSelectorPath: '.status.selector',
        },
      },
    },
  );
  const compiled = compileCrdVersion(crd, 'v1');
  const obj = {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w' },
    spec: { replicas: -1 },
    status: { replicas: 'x', selector: 5 },
  };
  assert.deepEqual(lines(compiled.validate(obj)), [
    '.spec.replicas: Invalid value: -1: should be a non-negative integer',
    '.status.replicas: Invalid value: 0: .status.replicas accessor error: x is of the type string, expected int64',
    '.status.selector: Invalid value: "": .status.selector accessor error: 5 is of the type int64, expected string',
  ]);
});

test('status writes are validated against the status schema with status.* paths', () => {
  const crd = widgetCrd({
    type: 'object',
    properties: { status: { type: 'object', properties: { ready: { type: 'boolean' } } } },
  });
  const compiled = compileCrdVersion(crd, 'v1');
  assert.deepEqual(
    lines(
      compiled.validateStatus({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: {}, status: { ready: 'yes' } }),
    ),
    ['status.ready: Invalid value: "string": ready in body must be of type boolean: "string"'],
  );
});

test('updates ratchet: errors about unchanged values are dropped', () => {
  const compiled = compileCrdVersion(
    widgetCrd(specSchema({ name: { type: 'string', maxLength: 3 }, size: { type: 'integer' } })),
    'v1',
  );
  const old = {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w' },
    spec: { name: 'toolong', size: 1 },
  };
  const updated = { ...old, spec: { name: 'toolong', size: 'big' } };
  assert.deepEqual(lines(compiled.validate(updated, old)), [
    'spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"',
  ]);
  assert.equal(compiled.validate(updated).length, 2);
});
