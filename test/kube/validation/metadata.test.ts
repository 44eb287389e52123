import { test } from 'node:test';
import assert from 'node:assert/strict';
import { invalid } from '../../../src/apimachinery/errors/index.ts';
import type { ObjectMeta } from '../../../src/apimachinery/meta/index.ts';
import {
  customResourceFinalizerWarnings,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type ObjectMetaOptions,
} from '../../../src/kube/validation/metadata.ts';
import { nameRuleFor, objectMetaOptionsFor } from '../../../src/kube/validation/name-rules.ts';
import { validateLabelSelector } from '../../../src/apimachinery/validation/label-selector.ts';
import { toCauses, type FieldError } from '../../../src/apimachinery/validation/field-errors.ts';

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const ns: ObjectMetaOptions = { namespaced: true, nameRule: 'subdomain' };
const shown = (errs: FieldError[]): string[] => errs.map((e) => `${e.field} | ${e.reason} | ${e.message}`);

test('validateObjectMeta: a valid object has no errors', () => {
  const meta: ObjectMeta = {
    name: 'web.v1',
    namespace: 'prod',
    labels: { app: 'web', 'example.com/tier': '' },
    annotations: { 'Example.COM/Owner': 'me' },
    finalizers: ['example.com/cleanup', 'kubernetes'],
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
  };
  assert.deepEqual(validateObjectMeta(meta, { ...ns, strictFinalizers: true }), []);
});

test('validateObjectMeta: field paths, reasons and messages', () => {
  const table: Array<[ObjectMeta, ObjectMetaOptions, string[]]> = [
    [{ namespace: 'a' }, ns, ['metadata.name | FieldValueRequired | Required value: name or generateName is required']],
    [
      { name: 'Bad', namespace: 'a' },
      ns,
      [`metadata.name | FieldValueInvalid | Invalid value: "Bad": ${SUBDOMAIN_MSG}`],
    ],
    [
      { name: 'x'.repeat(254), namespace: 'a' },
      ns,
      [`metadata.name | FieldValueInvalid | Invalid value: "${'x'.repeat(254)}": must be no more than 253 characters`],
    ],
    [
      { name: 'Bad-x', generateName: 'Bad-', namespace: 'a' },
      ns,
      [
        `metadata.generateName | FieldValueInvalid | Invalid value: "Bad-": ${SUBDOMAIN_MSG}`,
        `metadata.name | FieldValueInvalid | Invalid value: "Bad-x": ${SUBDOMAIN_MSG}`,
      ],
    ],
    [
      { name: 'a.b' },
      { namespaced: false, nameRule: 'label' },
      ['metadata.name | FieldValueInvalid | Invalid value: "a.b": must not contain dots'],
    ],
    [{ name: 'a' }, ns, ['metadata.namespace | FieldValueRequired | Required value']],
    [
      { name: 'a', namespace: 'Bad' },
      ns,
      [`metadata.namespace | FieldValueInvalid | Invalid value: "Bad": ${LABEL_MSG}`],
    ],
    [
      { name: 'a', namespace: 'x' },
      { namespaced: false, nameRule: 'subdomain' },
      ['metadata.namespace | FieldValueForbidden | Forbidden: not allowed on this type'],
    ],
    [
      { name: 'a', namespace: 'x', generation: -1 },
      ns,
      ['metadata.generation | FieldValueInvalid | Invalid value: -1: must be greater than or equal to 0'],
    ],
    [
      { name: 'a', namespace: 'x', labels: { 'bad key': 'v', ok: 'bad value' } },
      ns,
      [
        `metadata.labels | FieldValueInvalid | Invalid value: "bad key": ${NAME_PART_MSG}`,
        `metadata.labels | FieldValueInvalid | Invalid value: "bad value": ${VALUE_MSG}`,
      ],
    ],
    [
      { name: 'a', namespace: 'x', annotations: { 'a/b/c': 'v' } },
      ns,
      [
        "metadata.annotations | FieldValueInvalid | Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ],
    ],
    [
      { name: 'a', namespace: 'x', annotations: { big: 'x'.repeat(256 * 1024) } },
      ns,
      ['metadata.annotations | FieldValueTooLong | Too long: may not be more than 262144 bytes'],
    ],
    [
      { name: 'a', namespace: 'x', finalizers: ['bad/name/x'] },
      ns,
      [
        "metadata.finalizers | FieldValueInvalid | Invalid value: \"bad/name/x\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ],
    ],
    [
      { name: 'a', namespace: 'x', finalizers: ['orphan', 'foregroundDeletion'] },
      ns,
      [
        'metadata.finalizers | FieldValueInvalid | Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set',
      ],
    ],
    [
      { name: 'a', namespace: 'x', finalizers: ['kubernetes', 'my-finalizer', 'example.com/ok'] },
      { ...ns, strictFinalizers: true },
      [
        'metadata.finalizers[1] | FieldValueInvalid | Invalid value: "my-finalizer": name is neither a standard finalizer name nor is it fully qualified',
      ],
    ],
    [{ name: 'a', namespace: 'x', finalizers: ['my-finalizer'] }, ns, []],
    [{ name: 'a', namespace: 'x', finalizers: ['orphan'] }, { ...ns, strictFinalizers: true }, []],
    [
      { name: 'a', namespace: 'x', finalizers: ['foregroundDeletion', 'kubernetes'] },
      { ...ns, strictFinalizers: true },
      [],
    ],
    [
      { name: 'n'.repeat(53), namespace: 'x' },
      { ...ns, maxNameLength: 52 },
      [`metadata.name | FieldValueInvalid | Invalid value: "${'n'.repeat(53)}": must be no more than 52 characters`],
    ],
    [
      { name: 'a', namespace: 'x', ownerReferences: [{ apiVersion: 'a/b/c', kind: '', name: '', uid: '' }] },
      ns,
      [
        'metadata.ownerReferences.apiVersion | FieldValueInvalid | Invalid value: "a/b/c": version must not be empty',
        'metadata.ownerReferences.kind | FieldValueInvalid | Invalid value: "": kind must not be empty',
        'metadata.ownerReferences.name | FieldValueInvalid | Invalid value: "": name must not be empty',
        'metadata.ownerReferences.uid | FieldValueInvalid | Invalid value: "": uid must not be empty',
      ],
    ],
  ];
  for (const [meta, opts, want] of table)
    assert.deepEqual(shown(validateObjectMeta(meta, opts)), want, JSON.stringify(meta).slice(0, 120));
});

test('validateObjectMeta: at most one controller owner reference', () => {
  const errs = validateObjectMeta(
    {
      name: 'a',
      namespace: 'x',
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'one', uid: 'u1', controller: true },
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'two', uid: 'u2', controller: true, blockOwnerDeletion: true },
      ],
    },
    ns,
  );
  assert.equal(errs.length, 1);
  assert.equal(errs[0].field, 'metadata.ownerReferences');
  assert.equal(errs[0].reason, 'FieldValueInvalid');
  assert.match(
    errs[0].message,
    /^Invalid value: \[\]v1\.OwnerReference\{v1\.OwnerReference\{APIVersion:"apps\/v1", Kind:"ReplicaSet", Name:"one", UID:"u1", Controller:\(\*bool\)\(0x[0-9a-f]+\), BlockOwnerDeletion:\(\*bool\)\(nil\)\}, v1\.OwnerReference\{APIVersion:"v1", Kind:"ConfigMap", Name:"two", UID:"u2", Controller:\(\*bool\)\(0x[0-9a-f]+\), BlockOwnerDeletion:\(\*bool\)\(0x[0-9a-f]+\)\}\}: Only one reference can have Controller set to true\. Found "true" in references for ReplicaSet\/one and ConfigMap\/two$/,
  );
  const banned = validateObjectMeta(
    { name: 'a', namespace: 'x', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] },
    ns,
  );
  assert.equal(banned.length, 1);
  assert.match(
    banned[0].message,
    /^Invalid value: v1\.OwnerReference\{APIVersion:"v1", Kind:"Event", .*\}: \/v1, Kind=Event is disallowed from being an owner$/,
  );
});

test('validateObjectMeta errors render as kube-apiserver 422 messages', () => {
  const err = invalid('', 'ConfigMap', 'Bad', toCauses(validateObjectMeta({ name: 'Bad', namespace: 'default' }, ns)));
  assert.equal(err.code, 422);
  assert.equal(err.message, `ConfigMap "Bad" is invalid: metadata.name: Invalid value: "Bad": ${SUBDOMAIN_MSG}`);
  assert.deepEqual(err.details?.causes, [
    { reason: 'FieldValueInvalid', message: `Invalid value: "Bad": ${SUBDOMAIN_MSG}`, field: 'metadata.name' },
  ]);
});

test('validateObjectMetaUpdate', () => {
  const prev: ObjectMeta = {
    name: 'a',
    namespace: 'x',
    uid: 'u1',
    resourceVersion: '5',
    generation: 3,
    creationTimestamp: '2024-01-02T03:04:05Z',
    finalizers: ['example.com/a'],
  };
  assert.deepEqual(validateObjectMetaUpdate({ ...prev }, prev), []);
  const table: Array<[ObjectMeta, ObjectMeta, string[]]> = [
    [
      { ...prev, resourceVersion: '' },
      prev,
      ['metadata.resourceVersion | FieldValueInvalid | Invalid value: "": must be specified for an update'],
    ],
    [
      { ...prev, generation: 2 },
      prev,
      ['metadata.generation | FieldValueInvalid | Invalid value: 2: must not be decremented'],
    ],
    [{ ...prev, name: 'b' }, prev, ['metadata.name | FieldValueInvalid | Invalid value: "b": field is immutable']],
    [{ ...prev, uid: 'u2' }, prev, ['metadata.uid | FieldValueInvalid | Invalid value: "u2": field is immutable']],
    [
      { ...prev, creationTimestamp: '2025-01-01T00:00:00Z' },
      prev,
      [
        'metadata.creationTimestamp | FieldValueInvalid | Invalid value: 2025-01-01 00:00:00 +0000 UTC: field is immutable',
      ],
    ],
    [
      { ...prev, deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: ['example.com/a', 'z.io/b', 'a.io/c'] },
      { ...prev, deletionTimestamp: '2025-01-01T00:00:00Z' },
      [
        'metadata.finalizers | FieldValueForbidden | Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"a.io/c", "z.io/b"}',
      ],
    ],
    [
      { ...prev, deletionGracePeriodSeconds: 0 },
      prev,
      ['metadata.deletionGracePeriodSeconds | FieldValueInvalid | Invalid value: 0: field is immutable'],
    ],
  ];
  for (const [next, old, want] of table) assert.deepEqual(shown(validateObjectMetaUpdate(next, old)), want);
  assert.deepEqual(
    shown(validateObjectMetaUpdate({ ...prev, finalizers: ['plain'] }, prev, { strictFinalizers: true })),
    [
      'metadata.finalizers[0] | FieldValueInvalid | Invalid value: "plain": name is neither a standard finalizer name nor is it fully qualified',
    ],
  );
});

test('custom resource finalizer warnings', () => {
  assert.deepEqual(customResourceFinalizerWarnings(['example.com/x', 'kubernetes']), []);
  assert.deepEqual(customResourceFinalizerWarnings(['mine', 'old'], ['old']), [
    'metadata.finalizers: "mine": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers',
  ]);
});

test('nameRuleFor and objectMetaOptionsFor', () => {
  const table: Array<[string, string, string]> = [
    ['', 'namespaces', 'label'],
    ['', 'services', 'dns1035'],
    ['', 'pods', 'subdomain'],
    ['', 'configmaps', 'subdomain'],
    ['', 'events', 'path-segment'],
    ['events.k8s.io', 'events', 'subdomain'],
    ['apps', 'statefulsets', 'label'],
    ['apps', 'deployments', 'subdomain'],
    ['rbac.authorization.k8s.io', 'clusterroles', 'path-segment'],
    ['certificates.k8s.io', 'certificatesigningrequests', 'path-segment'],
    ['example.com', 'widgets', 'subdomain'],
  ];
  for (const [group, resource, want] of table) assert.equal(nameRuleFor(group, resource), want, `${group}/${resource}`);
  assert.deepEqual(objectMetaOptionsFor('batch', 'cronjobs', true), {
    namespaced: true,
    nameRule: 'subdomain',
    strictFinalizers: true,
    maxNameLength: 52,
  });
  assert.equal(objectMetaOptionsFor('coordination.k8s.io', 'leases', true).strictFinalizers, false);
  assert.equal(objectMetaOptionsFor('', 'configmaps', true).strictFinalizers, true);
  assert.deepEqual(objectMetaOptionsFor('example.com', 'widgets', false, true), {
    namespaced: false,
    nameRule: 'subdomain',
    strictFinalizers: false,
  });
});

test('validateLabelSelector (spec selectors)', () => {
  assert.deepEqual(validateLabelSelector(undefined, 'spec.selector'), []);
  assert.deepEqual(
    shown(
      validateLabelSelector(
        {
          matchLabels: { a_: 'b' },
          matchExpressions: [
            { key: 'k', operator: 'In' },
            { key: 'k', operator: 'Exists', values: ['v'] },
            { key: 'k', operator: 'Nope' },
            { key: 'k', operator: 'NotIn', values: ['ok', 'bad value'] },
          ],
        },
        'spec.selector',
      ),
    ),
    [
      `spec.selector.matchLabels | FieldValueInvalid | Invalid value: "a_": ${NAME_PART_MSG}`,
      "spec.selector.matchExpressions[0].values | FieldValueRequired | Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "spec.selector.matchExpressions[1].values | FieldValueForbidden | Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'spec.selector.matchExpressions[2].operator | FieldValueInvalid | Invalid value: "Nope": not a valid selector operator',
      `spec.selector.matchExpressions[3].values[1] | FieldValueInvalid | Invalid value: "bad value": ${VALUE_MSG}`,
    ],
  );
});
