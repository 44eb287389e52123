// managedFields for create/update/patch: ownership moves with what each write changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject, ManagedFieldsEntry } from '../../../../src/apimachinery/meta/index.ts';
import type { SchemaInfo } from '../../../../src/kube/patch/schema-info.ts';
import {
  setManagedFields,
  stripManagedFieldsInput,
  updateManagedFields,
  type UpdateManagedFieldsOptions,
} from '../../../../src/kube/patch/apply/managed-fields.ts';

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

/** Creates `obj` with a non-apply write by `manager`, as the registry stores it (uid set). */
function createdBy(obj: JsonObject, manager: string, now: string): JsonObject {
  const entries = updateManagedFields(undefined, obj, manager, { apiVersion: 'v1', now, schemaInfo: schema });
  const stored = { ...obj, metadata: { ...(obj.metadata as JsonObject), uid: 'u-1' } };
  return setManagedFields(stored, entries);
}

function managedFieldsOf(obj: JsonObject): ManagedFieldsEntry[] | undefined {
  return (obj.metadata as { managedFields?: ManagedFieldsEntry[] }).managedFields;
}

const opts = (now: string, extra: Partial<UpdateManagedFieldsOptions> = {}): UpdateManagedFieldsOptions => ({
  apiVersion: 'v1',
  now,
  schemaInfo: schema,
  ...extra,
});

/** The next version of `stored`: new data, stored managedFields and uid carried over as a patch would. */
function edit(stored: JsonObject, data: Record<string, string>): JsonObject {
  return { ...stored, data };
}

const entry = (manager: string, time: string, fieldsV1: JsonObject): ManagedFieldsEntry => ({
  manager,
  operation: 'Update',
  apiVersion: 'v1',
  time,
  fieldsType: 'FieldsV1',
  fieldsV1,
});

test('create: the creator owns every field it set, maps marked with "."', () => {
  const obj = configMap({ x: '1' }, { labels: { app: 'a' } });
  assert.deepEqual(updateManagedFields(undefined, obj, 'kubectl-create', opts(T(1))), [
    entry('kubectl-create', T(1), {
      'f:data': { '.': {}, 'f:x': {} },
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    }),
  ]);
});

test('update: changed and added fields move to the writer; removed fields leave every owner', () => {
  const created = createdBy(configMap({ x: '1', y: '1' }), 'a', T(1));
  const byB = setManagedFields(
    edit(created, { x: '1', y: '2', z: '3' }),
    updateManagedFields(created, edit(created, { x: '1', y: '2', z: '3' }), 'b', opts(T(2))),
  );
  assert.deepEqual(managedFieldsOf(byB), [
    entry('a', T(1), { 'f:data': { '.': {}, 'f:x': {} } }),
    entry('b', T(2), { 'f:data': { 'f:y': {}, 'f:z': {} } }),
  ]);
  // c only removes: it takes nothing, so it gets no entry, and a keeps only the map itself.
  assert.deepEqual(updateManagedFields(byB, edit(byB, { y: '2', z: '3' }), 'c', opts(T(3))), [
    entry('a', T(1), { 'f:data': {} }),
    entry('b', T(2), { 'f:data': { 'f:y': {}, 'f:z': {} } }),
  ]);
  // A write that changes nothing leaves managedFields exactly as they were.
  assert.deepEqual(
    updateManagedFields(byB, edit(byB, { x: '1', y: '2', z: '3' }), 'c', opts(T(3))),
    managedFieldsOf(byB),
  );
  // The same manager writing again merges into its entry and moves its time.
  assert.deepEqual(updateManagedFields(byB, edit(byB, { x: '9', y: '2', z: '3' }), 'b', opts(T(4))), [
    entry('a', T(1), { 'f:data': {} }),
    entry('b', T(4), { 'f:data': { 'f:x': {}, 'f:y': {}, 'f:z': {} } }),
  ]);
});

test('an existing object without managedFields stays untracked by updates', () => {
  const stored = configMap({ x: '1' }, { uid: 'u-1' });
  assert.deepEqual(updateManagedFields(stored, edit(stored, { x: '2' }), 'b', opts(T(2))), []);
});

test('client-sent managedFields: valid list kept, [] and [{}] reset, invalid falls back to stored', () => {
  const stored = createdBy(configMap({ x: '1' }), 'a', T(1));
  const sentEntry = entry('edited', T(0), { 'f:data': { 'f:x': {} } });
  const withSent = (mf: unknown): JsonObject => ({
    ...stored,
    metadata: { ...(stored.metadata as JsonObject), managedFields: mf as JsonObject },
  });

  assert.deepEqual(updateManagedFields(stored, withSent([sentEntry]), 'b', opts(T(2))), [sentEntry]);
  assert.deepEqual(updateManagedFields(stored, withSent([]), 'b', opts(T(2))), []);
  assert.deepEqual(updateManagedFields(stored, withSent([{}]), 'b', opts(T(2))), []);
  assert.deepEqual(
    updateManagedFields(stored, withSent([{ ...sentEntry, operation: 'Bogus' }]), 'b', opts(T(2))),
    managedFieldsOf(stored),
  );
  assert.deepEqual(
    updateManagedFields(stored, withSent([{ ...sentEntry, fieldsType: undefined }]), 'b', opts(T(2))),
    managedFieldsOf(stored),
  );
  // Through a subresource, what the request carries is ignored.
  assert.deepEqual(stripManagedFieldsInput(stored, withSent([sentEntry]), 'status'), managedFieldsOf(stored));
});

test('a write that carries the stored list unchanged (a patch) starts from that list', () => {
  const stored = createdBy(configMap({ x: '1', y: '1' }), 'a', T(1));
  const carried = structuredClone(edit(stored, { x: '2', y: '1' }));
  const { managedFields: _, ...metaWithout } = stored.metadata as JsonObject;
  const dropped = { ...edit(stored, { x: '2', y: '1' }), metadata: metaWithout };
  const expected = updateManagedFields(stored, dropped, 'b', opts(T(2)));
  assert.deepEqual(updateManagedFields(stored, carried, 'b', opts(T(2))), expected);
  assert.deepEqual(
    expected.map((e) => e.manager),
    ['a', 'b'],
  );
  // A stored list whose only entry owns nothing is no list: the object stays untracked.
  const empty = setManagedFields(stored, [entry('a', T(1), {})]);
  assert.deepEqual(updateManagedFields(empty, structuredClone(edit(empty, { x: '3' })), 'b', opts(T(3))), []);
});

test('writes to the main resource never own status; /status writes own only status', () => {
  const created = createdBy({ ...configMap({ x: '1' }), status: { phase: 'A' } }, 'creator', T(1));
  assert.deepEqual(managedFieldsOf(created), [entry('creator', T(1), { 'f:data': { '.': {}, 'f:x': {} } })]);
  const next = { ...created, data: { x: '2' }, status: { phase: 'B' } };
  assert.deepEqual(updateManagedFields(created, next, 'ctrl', opts(T(2), { subresource: 'status' })), [
    entry('creator', T(1), { 'f:data': { '.': {}, 'f:x': {} } }),
    { ...entry('ctrl', T(2), { 'f:status': { 'f:phase': {} } }), subresource: 'status' },
  ]);
  assert.deepEqual(updateManagedFields(created, next, 'creator', opts(T(2), { statusSubresource: false })), [
    entry('creator', T(2), { 'f:data': { '.': {}, 'f:x': {} }, 'f:status': { 'f:phase': {} } }),
  ]);
});

test('more than ten Update managers: the oldest fold into ancient-changes', () => {
  let obj = createdBy(configMap({ k0: 'v' }), 'm0', T(0));
  for (let i = 1; i <= 10; i++) {
    const next = { ...obj, data: { ...(obj.data as JsonObject), [`k${i}`]: 'v' } };
    obj = setManagedFields(next, updateManagedFields(obj, next, `m${i}`, opts(T(i))));
  }
  const mf = managedFieldsOf(obj)!;
  assert.deepEqual(
    mf.map((e) => e.manager),
    ['ancient-changes', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9', 'm10'],
  );
  assert.deepEqual(mf[0], entry('ancient-changes', T(1), { 'f:data': { '.': {}, 'f:k0': {}, 'f:k1': {} } }));
});
