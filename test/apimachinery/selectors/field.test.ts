import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../../src/apimachinery/errors/index.ts';
import {
  convertFieldSelector,
  fieldSet,
  parseFieldSelector,
  parseFieldSelectorFor,
  supportedFieldLabels,
  type FieldLabelOptions,
} from '../../../src/apimachinery/selectors/field.ts';

function badRequest(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, `expected StatusError, got ${String(e)}`);
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    return e.message;
  }
  assert.fail('expected an error');
}

test('field selector parsing: canonical form and requirements', () => {
  const table: Array<[string, string]> = [
    ['', ''],
    [',,', ''],
    ['metadata.name=foo', 'metadata.name=foo'],
    ['a==b', 'a=b'],
    ['a!=b', 'a!=b'],
    ['b=1,a=2', 'a=2,b=1'],
    ['a=', 'a='],
    ['a=x\\,y', 'a=x\\,y'],
    ['a=x\\=y\\\\z', 'a=x\\=y\\\\z'],
    ['a=!b', 'a=!b'],
    ['!=x', '!=x'],
  ];
  for (const [input, want] of table) assert.equal(parseFieldSelector(input).toString(), want, input);

  const sel = parseFieldSelector('status.phase!=Running,spec.nodeName==n1,a=x\\,y');
  assert.deepEqual(sel.requirements, [
    { field: 'a', operator: '=', value: 'x,y' },
    { field: 'spec.nodeName', operator: '=', value: 'n1' },
    { field: 'status.phase', operator: '!=', value: 'Running' },
  ]);
  assert.deepEqual(sel.fieldNames(), ['a', 'spec.nodeName', 'status.phase']);
  assert.equal(sel.requiresExactMatch('spec.nodeName'), 'n1');
  assert.equal(sel.requiresExactMatch('status.phase'), undefined);
  assert.equal(sel.empty, false);
  assert.equal(parseFieldSelector('').empty, true);
});

test('field selector matching: =, ==, != and absent fields', () => {
  const table: Array<[string, Record<string, string>, boolean]> = [
    ['a=b', { a: 'b' }, true],
    ['a=b', { a: 'c' }, false],
    ['a==b', { a: 'b' }, true],
    ['a!=b', { a: 'c' }, true],
    ['a!=b', { a: 'b' }, false],
    ['a!=b', {}, true],
    ['a=', {}, true],
    ['a=b', {}, false],
    ['a=b,c!=d', { a: 'b', c: 'e' }, true],
    ['a=b,c!=d', { a: 'b', c: 'd' }, false],
    ['a=x\\,y', { a: 'x,y' }, true],
    ['', { a: 'anything' }, true],
  ];
  for (const [selector, fields, want] of table) {
    assert.equal(parseFieldSelector(selector).matches(fields), want, `${selector} vs ${JSON.stringify(fields)}`);
  }
});

test('field selector parsing: upstream error messages', () => {
  const table: Array<[string, string]> = [
    ['abc', "invalid selector: 'abc'; can't understand 'abc'"],
    ['a=b,c', "invalid selector: 'a=b,c'; can't understand 'c'"],
    ['a=x\\y', 'invalid field selector: invalid escape sequence: \\y'],
    ['a=x\\', 'invalid field selector: invalid escape sequence: \\'],
    ['a=x=y', 'invalid field selector: unescaped character in value: 61'],
  ];
  for (const [input, want] of table)
    assert.equal(
      badRequest(() => parseFieldSelector(input)),
      want,
      input,
    );
});

test('field labels: per-kind conversion errors match kube-apiserver', () => {
  const crd = (namespaced: boolean, selectableFields?: string[]): FieldLabelOptions => ({
    custom: { namespaced, selectableFields },
  });
  const table: Array<[string, string, string, string, FieldLabelOptions?]> = [
    ['', 'pods', 'spec.foo=x', 'field label not supported: spec.foo'],
    ['', 'nodes', 'metadata.namespace=x', 'field label not supported: metadata.namespace'],
    ['', 'namespaces', 'metadata.namespace=x', 'field label not supported: metadata.namespace'],
    ['', 'secrets', 'data.x=y', 'field label not supported: data.x'],
    ['', 'events', 'message=x', 'field label not supported: message'],
    ['events.k8s.io', 'events', 'regarding.kind=Pod', 'field label not supported: regarding.kind'],
    [
      '',
      'configmaps',
      'data.x=y',
      '"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"',
    ],
    [
      'apps',
      'replicasets',
      'status.replicas=0',
      '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"',
    ],
    ['batch', 'jobs', 'spec.x=1', 'field label "spec.x" not supported for Job'],
    ['example.com', 'widgets', 'spec.size=1', 'field label not supported: spec.size', crd(true)],
    ['example.com', 'gadgets', 'metadata.namespace=a', 'field label not supported: metadata.namespace', crd(false)],
    // The first unsupported label in sorted term order is the one reported.
    ['', 'pods', 'z.bad=1,a.bad=2', 'field label not supported: a.bad'],
  ];
  for (const [group, resource, selector, want, opts] of table) {
    assert.equal(
      badRequest(() => parseFieldSelectorFor(selector, group, resource, opts)),
      want,
      selector,
    );
  }
});

test('field labels: supported sets', () => {
  const table: Array<[string, string, string[], FieldLabelOptions?]> = [
    ['', 'configmaps', ['metadata.name', 'metadata.namespace']],
    ['', 'nodes', ['metadata.name', 'spec.unschedulable']],
    ['', 'namespaces', ['metadata.name', 'status.phase']],
    ['', 'secrets', ['metadata.name', 'metadata.namespace', 'type']],
    ['', 'services', ['metadata.name', 'metadata.namespace', 'spec.clusterIP', 'spec.type']],
    ['', 'replicationcontrollers', ['metadata.name', 'metadata.namespace', 'status.replicas']],
    ['batch', 'jobs', ['metadata.name', 'metadata.namespace', 'status.successful']],
    ['certificates.k8s.io', 'certificatesigningrequests', ['metadata.name', 'spec.signerName']],
    [
      '',
      'pods',
      [
        'metadata.name',
        'metadata.namespace',
        'spec.host',
        'spec.hostNetwork',
        'spec.nodeName',
        'spec.restartPolicy',
        'spec.schedulerName',
        'spec.serviceAccountName',
        'status.nominatedNodeName',
        'status.phase',
        'status.podIP',
        'status.podIPs',
      ],
    ],
    [
      '',
      'events',
      [
        'involvedObject.apiVersion',
        'involvedObject.fieldPath',
        'involvedObject.kind',
        'involvedObject.name',
        'involvedObject.namespace',
        'involvedObject.resourceVersion',
        'involvedObject.uid',
        'metadata.name',
        'metadata.namespace',
        'reason',
        'reportingComponent',
        'source',
        'type',
      ],
    ],
    [
      'example.com',
      'widgets',
      ['metadata.name', 'metadata.namespace', 'spec.color'],
      { custom: { namespaced: true, selectableFields: ['.spec.color'] } },
    ],
    ['example.com', 'gadgets', ['metadata.name'], { custom: { namespaced: false } }],
  ];
  for (const [group, resource, want, opts] of table) {
    assert.deepEqual([...supportedFieldLabels(group, resource, opts)].sort(), want, `${group}/${resource}`);
  }
});

test('field labels: pods accept the legacy spec.host alias as spec.nodeName', () => {
  const sel = parseFieldSelectorFor('spec.host=n1', '', 'pods');
  assert.equal(sel.toString(), 'spec.nodeName=n1');
  const pod = { metadata: { name: 'p', namespace: 'ns' }, spec: { nodeName: 'n1' } };
  assert.equal(sel.matches(fieldSet('', 'pods', pod)), true);
  assert.equal(convertFieldSelector(parseFieldSelector(''), '', 'pods').empty, true);
});

test('field sets: values per kind', () => {
  const pod = {
    metadata: { name: 'web-1', namespace: 'prod' },
    spec: {
      nodeName: 'node-a',
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      serviceAccount: 'legacy-sa',
      hostNetwork: true,
    },
    status: {
      phase: 'Running',
      podIP: '10.0.0.9',
      podIPs: [{ ip: '10.0.0.5' }, { ip: 'fd00::5' }],
      nominatedNodeName: 'node-b',
    },
  };
  assert.deepEqual(fieldSet('', 'pods', pod), {
    'metadata.name': 'web-1',
    'metadata.namespace': 'prod',
    'spec.nodeName': 'node-a',
    'spec.restartPolicy': 'Always',
    'spec.schedulerName': 'default-scheduler',
    'spec.serviceAccountName': 'legacy-sa',
    'spec.hostNetwork': 'true',
    'status.phase': 'Running',
    'status.podIP': '10.0.0.5',
    'status.nominatedNodeName': 'node-b',
  });
  const bare = fieldSet('', 'pods', { metadata: { name: 'p' } });
  assert.equal(bare['spec.hostNetwork'], 'false');
  assert.equal(bare['status.podIP'], '');
  assert.equal(bare['metadata.namespace'], '');
  assert.equal(fieldSet('', 'pods', { status: { podIP: '10.1.1.1' } })['status.podIP'], '10.1.1.1');

  assert.equal(fieldSet('', 'nodes', { spec: { unschedulable: true } })['spec.unschedulable'], 'true');
  assert.equal(fieldSet('', 'nodes', {})['spec.unschedulable'], 'false');
  assert.equal(fieldSet('', 'secrets', { type: 'kubernetes.io/tls' }).type, 'kubernetes.io/tls');
  assert.equal(fieldSet('', 'namespaces', { status: { phase: 'Terminating' } })['status.phase'], 'Terminating');
  assert.equal(fieldSet('batch', 'jobs', { status: { succeeded: 3 } })['status.successful'], '3');
  assert.equal(fieldSet('batch', 'jobs', {})['status.successful'], '0');
  assert.equal(fieldSet('', 'replicationcontrollers', { status: { replicas: 2 } })['status.replicas'], '2');
  assert.deepEqual(fieldSet('', 'services', { spec: { clusterIP: 'None', type: 'ClusterIP' } }), {
    'metadata.name': '',
    'metadata.namespace': '',
    'spec.clusterIP': 'None',
    'spec.type': 'ClusterIP',
  });
  assert.deepEqual(fieldSet('', 'configmaps', { metadata: { name: 'c', namespace: 'd' }, data: { a: 'b' } }), {
    'metadata.name': 'c',
    'metadata.namespace': 'd',
  });
});

test('field sets: core and events.k8s.io event shapes give the same fields', () => {
  const core = {
    metadata: { name: 'e1', namespace: 'ns' },
    involvedObject: {
      kind: 'Pod',
      namespace: 'ns',
      name: 'p',
      uid: 'u-1',
      apiVersion: 'v1',
      resourceVersion: '7',
      fieldPath: 'spec.containers{c}',
    },
    reason: 'Started',
    source: { component: 'kubelet' },
    reportingComponent: 'kubelet',
    type: 'Normal',
  };
  const modern = {
    metadata: { name: 'e1', namespace: 'ns' },
    regarding: {
      kind: 'Pod',
      namespace: 'ns',
      name: 'p',
      uid: 'u-1',
      apiVersion: 'v1',
      resourceVersion: '7',
      fieldPath: 'spec.containers{c}',
    },
    reason: 'Started',
    reportingController: 'kubelet',
    type: 'Normal',
  };
  const want = {
    'metadata.name': 'e1',
    'metadata.namespace': 'ns',
    'involvedObject.kind': 'Pod',
    'involvedObject.namespace': 'ns',
    'involvedObject.name': 'p',
    'involvedObject.uid': 'u-1',
    'involvedObject.apiVersion': 'v1',
    'involvedObject.resourceVersion': '7',
    'involvedObject.fieldPath': 'spec.containers{c}',
    reason: 'Started',
    reportingComponent: 'kubelet',
    source: 'kubelet',
    type: 'Normal',
  };
  assert.deepEqual(fieldSet('', 'events', core), want);
  assert.deepEqual(fieldSet('events.k8s.io', 'events', modern), want);
  // What `kubectl describe` sends.
  const describe = parseFieldSelectorFor(
    'involvedObject.name=p,involvedObject.namespace=ns,involvedObject.kind=Pod,involvedObject.uid=u-1',
    '',
    'events',
  );
  assert.equal(describe.matches(fieldSet('', 'events', core)), true);
  assert.equal(
    describe.matches(fieldSet('', 'events', { ...core, involvedObject: { ...core.involvedObject, uid: 'other' } })),
    false,
  );
});

test('field sets: custom resource selectable fields', () => {
  const opts: FieldLabelOptions = {
    custom: { namespaced: true, selectableFields: ['.spec.color', '.spec.size', '.spec.enabled', '.status.missing'] },
  };
  const cr = { metadata: { name: 'w', namespace: 'ns' }, spec: { color: 'red', size: 3, enabled: false } };
  assert.deepEqual(fieldSet('example.com', 'widgets', cr, opts), {
    'spec.color': 'red',
    'spec.size': '3',
    'spec.enabled': 'false',
    'status.missing': '',
    'metadata.name': 'w',
    'metadata.namespace': 'ns',
  });
  const sel = parseFieldSelectorFor('spec.color=red,spec.size!=4', 'example.com', 'widgets', opts);
  assert.equal(sel.matches(fieldSet('example.com', 'widgets', cr, opts)), true);
});
