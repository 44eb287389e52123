// Server-side apply: merge, ownership, pruning and conflicts, with exact objects and messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject, ManagedFieldsEntry } from '../../../../src/apimachinery/meta/index.ts';
import type { SchemaInfo } from '../../../../src/kube/patch/schema-info.ts';
import { StatusError } from '../../../../src/apimachinery/errors/index.ts';
import { serverSideApply, type ApplyOptions } from '../../../../src/kube/patch/apply/apply.ts';
import { setManagedFields, updateManagedFields } from '../../../../src/kube/patch/apply/managed-fields.ts';

// Fixtures: a schema with the list kinds under test, and objects stored the way the registry would.
const schema: SchemaInfo = {
  listKind(path) {
    switch (path.join('.')) {
      case 'spec.containers':
        return { type: 'map', keys: ['name'] };
      case 'spec.containers.ports':
        return { type: 'map', keys: ['containerPort', 'protocol'] };
      case 'metadata.finalizers':
        return { type: 'set' };
      default:
        return undefined;
    }
  },
  listKeyDefault: (path, key) => (path.join('.') === 'spec.containers.ports' && key === 'protocol' ? 'TCP' : undefined),
};

const T = (s: number): string => `2024-01-01T00:00:${String(s).padStart(2, '0')}Z`;

function configMap(data: Record<string, string>, extraMeta: JsonObject = {}): JsonObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', ...extraMeta }, data };
}

function pod(spec: JsonObject): JsonObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, spec };
}

/** Creates `obj` with a non-apply write by `manager`, as the registry stores it (uid set). */
function createdBy(obj: JsonObject, manager: string, now: string): JsonObject {
  const entries = updateManagedFields(undefined, obj, manager, { apiVersion: 'v1', now, schemaInfo: schema });
  const stored = { ...obj, metadata: { ...(obj.metadata as JsonObject), uid: 'u-1' } };
  return setManagedFields(stored, entries);
}

function managedFieldsOf(obj: JsonObject): ManagedFieldsEntry[] | undefined {
  return (obj.metadata as { managedFields?: ManagedFieldsEntry[] }).managedFields;
}

function apply(
  live: JsonObject | undefined,
  applied: JsonObject,
  manager: string,
  now: string,
  extra: Partial<ApplyOptions> = {},
) {
  return serverSideApply(live, applied, { manager, force: false, apiVersion: 'v1', now, schemaInfo: schema, ...extra });
}

function applyError(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  assert.fail('expected a StatusError');
}

test('apply creates the object and records an Apply entry with time', () => {
  const r = apply(undefined, configMap({ a: '1', b: '2' }, { labels: { app: 'x' } }), 'm', T(1));
  assert.equal(r.changed, true);
  assert.deepEqual(r.object, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'c',
      namespace: 'ns',
      labels: { app: 'x' },
      managedFields: [
        {
          manager: 'm',
          operation: 'Apply',
          apiVersion: 'v1',
          time: T(1),
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
        },
      ],
    },
    data: { a: '1', b: '2' },
  });
  assert.equal(
    JSON.stringify(managedFieldsOf(r.object)),
    '[{"manager":"m","operation":"Apply","apiVersion":"v1","time":"2024-01-01T00:00:01Z","fieldsType":"FieldsV1",' +
      '"fieldsV1":{"f:data":{"f:a":{},"f:b":{}},"f:metadata":{"f:labels":{"f:app":{}}}}}]',
  );
});

test('re-applying the same configuration changes nothing, not even the time', () => {
  const first = apply(undefined, configMap({ a: '1' }), 'm', T(1)).object;
  const again = apply(first, configMap({ a: '1' }), 'm', T(2));
  assert.equal(again.changed, false);
  assert.deepEqual(again.object, first);
});

test('a field the applier owned and now omits is removed', () => {
  const first = apply(undefined, configMap({ a: '1', b: '2' }), 'm', T(1)).object;
  const r = apply(first, configMap({ a: '1' }), 'm', T(2));
  assert.equal(r.changed, true);
  assert.deepEqual(r.object.data, { a: '1' });
  assert.deepEqual(managedFieldsOf(r.object), [
    {
      manager: 'm',
      operation: 'Apply',
      apiVersion: 'v1',
      time: T(2),
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:a': {} } },
    },
  ]);
});

test('an omitted field another manager also owns stays; same value means shared, no conflict', () => {
  const live = createdBy(configMap({ a: '1', b: '2' }), 'kubectl-create', T(1));
  const shared = apply(live, configMap({ a: '1', b: '2' }), 'm', T(2));
  // Nothing changed in the object, so the new Apply entry has no time (as in kube).
  assert.deepEqual(managedFieldsOf(shared.object), [
    {
      manager: 'm',
      operation: 'Apply',
      apiVersion: 'v1',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } },
    },
    {
      manager: 'kubectl-create',
      operation: 'Update',
      apiVersion: 'v1',
      time: T(1),
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } },
    },
  ]);
  const r = apply(shared.object, configMap({ a: '1' }), 'm', T(3));
  assert.deepEqual(r.object.data, { a: '1', b: '2' });
  assert.deepEqual(managedFieldsOf(r.object)![0].fieldsV1, { 'f:data': { 'f:a': {} } });
});

test('conflict with an Update manager: exact 409 message and cause', () => {
  const live = createdBy(configMap({ x: '1' }), 'kubectl-client-side-apply', T(1));
  const err = applyError(() => apply(live, configMap({ x: '2' }), 'm', T(2)));
  assert.deepEqual(err.toStatus(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.x',
    reason: 'Conflict',
    details: {
      causes: [
        {
          reason: 'FieldManagerConflict',
          message: 'conflict with "kubectl-client-side-apply" using v1',
          field: '.data.x',
        },
      ],
    },
    code: 409,
  });
});

test('two conflicts with another applier', () => {
  const live = apply(undefined, configMap({ x: '1', y: '1' }), 'other', T(1)).object;
  const err = applyError(() => apply(live, configMap({ x: '2', y: '2' }), 'm', T(2)));
  assert.equal(err.code, 409);
  assert.equal(err.message, 'Apply failed with 2 conflicts: conflicts with "other":\n- .data.x\n- .data.y');
  assert.deepEqual(err.details, {
    causes: [
      { reason: 'FieldManagerConflict', message: 'conflict with "other"', field: '.data.x' },
      { reason: 'FieldManagerConflict', message: 'conflict with "other"', field: '.data.y' },
    ],
  });
});

test('conflicts with two managers are grouped by manager, sorted', () => {
  const created = createdBy(configMap({ x: '1' }), 'b-updater', T(1));
  const live = apply(created, configMap({ y: '1' }), 'a-applier', T(2)).object;
  const err = applyError(() => apply(live, configMap({ x: '2', y: '2' }), 'm', T(3)));
  assert.equal(
    err.message,
    'Apply failed with 2 conflicts: conflicts with "a-applier":\n- .data.y\nconflicts with "b-updater" using v1:\n- .data.x',
  );
  assert.deepEqual(
    err.details?.causes?.map((c) => [c.message, c.field]),
    [
      ['conflict with "a-applier"', '.data.y'],
      ['conflict with "b-updater" using v1', '.data.x'],
    ],
  );
});

test('force takes ownership and moves the field away from the other manager', () => {
  const live = createdBy(configMap({ x: '1', y: '1' }), 'kubectl-client-side-apply', T(1));
  const r = apply(live, configMap({ x: '2' }), 'm', T(2), { force: true });
  assert.deepEqual(r.object.data, { x: '2', y: '1' });
  assert.deepEqual(managedFieldsOf(r.object), [
    {
      manager: 'm',
      operation: 'Apply',
      apiVersion: 'v1',
      time: T(2),
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:x': {} } },
    },
    {
      manager: 'kubectl-client-side-apply',
      operation: 'Update',
      apiVersion: 'v1',
      time: T(1),
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { '.': {}, 'f:y': {} } },
    },
  ]);
});

test('containers merge by name across two managers; each owns its own item', () => {
  const a1 = apply(undefined, pod({ containers: [{ name: 'a', image: 'img-a' }] }), 'A', T(1)).object;
  const b1 = apply(a1, pod({ containers: [{ name: 'b', image: 'img-b' }] }), 'B', T(2)).object;
  assert.deepEqual((b1.spec as JsonObject).containers, [
    { name: 'a', image: 'img-a' },
    { name: 'b', image: 'img-b' },
  ]);
  assert.deepEqual(
    managedFieldsOf(b1)!.map((e) => [e.manager, e.fieldsV1]),
    [
      ['A', { 'f:spec': { 'f:containers': { 'k:{"name":"a"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } }],
      ['B', { 'f:spec': { 'f:containers': { 'k:{"name":"b"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } }],
    ],
  );
  const a2 = apply(b1, pod({ containers: [{ name: 'a', image: 'img-a2' }] }), 'A', T(3)).object;
  assert.deepEqual((a2.spec as JsonObject).containers, [
    { name: 'a', image: 'img-a2' },
    { name: 'b', image: 'img-b' },
  ]);
  const err = applyError(() => apply(a2, pod({ containers: [{ name: 'a', image: 'other' }] }), 'B', T(4)));
  assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "A": .spec.containers[name="a"].image');
  // A stops applying its container: only A's item goes.
  const a3 = apply(a2, pod({}), 'A', T(5)).object;
  assert.deepEqual((a3.spec as JsonObject).containers, [{ name: 'b', image: 'img-b' }]);
});

test('map-list order: live-only items keep their place, the rest follow the configuration', () => {
  const live = createdBy(pod({ containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }), 'creator', T(1));
  const r = apply(live, pod({ containers: [{ name: 'c' }, { name: 'd' }, { name: 'a' }] }), 'm', T(2));
  const names = ((r.object.spec as JsonObject).containers as JsonObject[]).map((c) => c.name);
  assert.deepEqual(names, ['b', 'c', 'd', 'a']);
});

test('map-list keys use defaults for missing key fields', () => {
  const live = createdBy(
    pod({ containers: [{ name: 'a', ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }] }] }),
    'creator',
    T(1),
  );
  const r = apply(
    live,
    pod({ containers: [{ name: 'a', ports: [{ containerPort: 80, hostPort: 8080 }] }] }),
    'm',
    T(2),
  );
  assert.deepEqual((r.object.spec as JsonObject).containers, [
    { name: 'a', ports: [{ containerPort: 80, protocol: 'TCP', name: 'http', hostPort: 8080 }] },
  ]);
});

test('set lists merge by value; dropping a value removes only the applier’s own', () => {
  const withFinalizers = (f: string[]): JsonObject => ({
    ...configMap({}),
    metadata: { name: 'c', namespace: 'ns', finalizers: f },
  });
  const a = apply(undefined, withFinalizers(['a.io/x']), 'A', T(1)).object;
  const b = apply(a, withFinalizers(['b.io/y']), 'B', T(2)).object;
  assert.deepEqual((b.metadata as JsonObject).finalizers, ['a.io/x', 'b.io/y']);
  assert.deepEqual(managedFieldsOf(b)![0].fieldsV1, {
    'f:metadata': { 'f:finalizers': { 'v:"a.io/x"': {} } },
    'f:data': {},
  });
  const r = apply(b, withFinalizers([]), 'A', T(3)).object;
  assert.deepEqual((r.metadata as JsonObject).finalizers, ['b.io/y']);
});

test('atomic lists are replaced whole and owned as one field', () => {
  const args = (a: string[]): JsonObject => pod({ containers: [{ name: 'c', args: a }] });
  const first = apply(undefined, args(['1', '2']), 'A', T(1)).object;
  const replaced = apply(first, args(['x']), 'A', T(2)).object;
  assert.deepEqual(((replaced.spec as JsonObject).containers as JsonObject[])[0].args, ['x']);
  const err = applyError(() => apply(replaced, args(['3']), 'B', T(3)));
  assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "A": .spec.containers[name="c"].args');
  const forced = apply(replaced, args(['3']), 'B', T(3), { force: true }).object;
  assert.deepEqual(((forced.spec as JsonObject).containers as JsonObject[])[0].args, ['3']);
  assert.deepEqual(managedFieldsOf(forced)!.find((e) => e.manager === 'A')!.fieldsV1, {
    'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:name': {} } } },
  });
});

test('first apply to an object without managedFields credits existing fields to before-first-apply', () => {
  const live = { ...configMap({ a: '1' }, { uid: 'u-1', labels: { l: 'v' } }) };
  const r = apply(live, configMap({ b: '2' }), 'm', T(5));
  assert.deepEqual(r.object.data, { a: '1', b: '2' });
  assert.deepEqual(managedFieldsOf(r.object), [
    {
      manager: 'm',
      operation: 'Apply',
      apiVersion: 'v1',
      time: T(5),
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:b': {} } },
    },
    {
      manager: 'before-first-apply',
      operation: 'Update',
      apiVersion: 'v1',
      time: T(5),
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:l': {} } } },
    },
  ]);
});

test('status is not owned through the main resource; /status owns only status', () => {
  const obj = (phase: string): JsonObject => ({ ...pod({ nodeName: 'n' }), status: { phase } });
  const main = apply(undefined, obj('Pending'), 'm', T(1)).object;
  assert.deepEqual(managedFieldsOf(main)![0].fieldsV1, { 'f:spec': { 'f:nodeName': {} } });
  const status = apply(main, obj('Running'), 'ctrl', T(2), { subresource: 'status' }).object;
  assert.deepEqual(managedFieldsOf(status)![1], {
    manager: 'ctrl',
    operation: 'Apply',
    apiVersion: 'v1',
    time: T(2),
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:status': { 'f:phase': {} } },
    subresource: 'status',
  });
  const err = applyError(() => apply(status, obj('Failed'), 'other', T(3), { subresource: 'status' }));
  assert.equal(
    err.message,
    'Apply failed with 1 conflict: conflict with "ctrl" with subresource "status": .status.phase',
  );
});

test('bad configurations: wrong type, managedFields set, duplicate keys', () => {
  const wrongType = applyError(() =>
    apply(undefined, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } }, 'm', T(1)),
  );
  assert.deepEqual([wrongType.code, wrongType.message], [400, 'invalid object type: apps/v1, Kind=Deployment']);
  const withMf = applyError(() => apply(undefined, configMap({}, { managedFields: [] }), 'm', T(1)));
  assert.deepEqual([withMf.code, withMf.message], [400, 'metadata.managedFields must be nil']);
  const dup = applyError(() => apply(undefined, pod({ containers: [{ name: 'a' }, { name: 'a' }] }), 'm', T(1)));
  assert.deepEqual(
    [dup.code, dup.message],
    [
      500,
      'failed to create typed patch object (ns/p; /v1, Kind=Pod): .spec.containers: duplicate entries for key [name="a"]',
    ],
  );
  const noKey = applyError(() => apply(undefined, pod({ containers: [{ image: 'x' }] }), 'm', T(1)));
  assert.equal(
    noKey.message,
    'failed to create typed patch object (ns/p; /v1, Kind=Pod): .spec.containers: element 0: associative list with keys has an element that omits all key fields ["name"] (and doesn\'t have default values for any key fields)',
  );
});

test('kubectl upgrading from client-side apply takes over fields last-applied explains', () => {
  const annotation =
    '{"apiVersion":"v1","data":{"x":"1"},"kind":"ConfigMap","metadata":{"name":"c","namespace":"ns"}}\n';
  const csa = configMap(
    { x: '1' },
    { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': annotation } },
  );
  const live = createdBy(csa, 'kubectl-client-side-apply', T(1));
  const other = applyError(() => apply(live, configMap({ x: '2' }), 'someone', T(2)));
  assert.equal(other.code, 409);
  const r = apply(live, configMap({ x: '2' }), 'kubectl', T(2)).object;
  assert.deepEqual(r.data, { x: '2' });
  assert.equal(
    ((r.metadata as JsonObject).annotations as JsonObject)['kubectl.kubernetes.io/last-applied-configuration'],
    '{"apiVersion":"v1","data":{"x":"2"},"kind":"ConfigMap","metadata":{"name":"c","namespace":"ns"}}\n',
  );
  assert.deepEqual(
    managedFieldsOf(r)!.map((e) => [e.manager, e.fieldsV1]),
    [
      ['kubectl', { 'f:data': { 'f:x': {} } }],
      [
        'kubectl-client-side-apply',
        // Only the data map itself is left: a member with nothing under it encodes as {}.
        {
          'f:data': {},
          'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } },
        },
      ],
    ],
  );
});
