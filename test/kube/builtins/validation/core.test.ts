import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyDefaults, validate } from '../../../../src/kube/builtins/index.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';

function check(group: string, kind: string, o: JsonObject, old?: JsonObject): string[] {
  applyDefaults(group, kind, o, old ? 'update' : 'create');
  return validate(group, kind, o, old).map((e) => `${e.field}: ${e.message}`);
}

const KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

describe('ConfigMap and Secret validation', () => {
  it('checks data keys', () => {
    assert.deepStrictEqual(
      check('', 'ConfigMap', { data: { 'ok.key': 'v', 'bad key': 'v', '..x': 'v' }, binaryData: { 'ok.key': 'dg==' } }),
      [
        'data[..x]: Invalid value: "..x": must not start with \'..\'',
        `data[bad key]: Invalid value: "bad key": ${KEY_MSG}`,
        'data[ok.key]: Invalid value: "ok.key": duplicate of key present in binaryData',
      ],
    );
    assert.deepStrictEqual(check('', 'Secret', { data: { 'a/b': 'eA==' } }), [
      `data[a/b]: Invalid value: "a/b": ${KEY_MSG}`,
    ]);
  });

  it('limits the total size to 1 MiB', () => {
    const big = 'x'.repeat(1024 * 1024 + 1);
    assert.deepStrictEqual(check('', 'ConfigMap', { data: { a: big } }), [
      // field.NewPath("").String() is "[]" (apimachinery/pkg/util/validation/field/path.go).
      '[]: Too long: may not be more than 1048576 bytes',
    ]);
    assert.deepStrictEqual(check('', 'Secret', { stringData: { a: big } }), [
      'data: Too long: may not be more than 1048576 bytes',
    ]);
    assert.deepStrictEqual(check('', 'ConfigMap', { data: { a: 'x'.repeat(1024 * 1024) } }), []);
  });

  it('requires the keys each Secret type needs', () => {
    assert.deepStrictEqual(check('', 'Secret', { type: 'kubernetes.io/tls', data: { 'tls.crt': 'eA==' } }), [
      'data[tls.key]: Required value',
    ]);
    assert.deepStrictEqual(check('', 'Secret', { type: 'kubernetes.io/basic-auth', data: {} }), [
      'data[username]: Required value',
      'data[password]: Required value',
    ]);
    assert.deepStrictEqual(check('', 'Secret', { type: 'kubernetes.io/service-account-token' }), [
      'metadata.annotations[kubernetes.io/service-account.name]: Required value',
    ]);
    assert.deepStrictEqual(
      check('', 'Secret', {
        type: 'kubernetes.io/dockerconfigjson',
        stringData: { '.dockerconfigjson': '{"auths":{}}' },
      }),
      [],
    );
  });

  it('keeps type and immutable data fixed on update', () => {
    const old: JsonObject = { type: 'Opaque', immutable: true, data: { a: 'eA==' } };
    assert.deepStrictEqual(
      check(
        '',
        'Secret',
        { type: 'kubernetes.io/tls', immutable: true, data: { a: 'eQ==', 'tls.crt': '', 'tls.key': '' } },
        old,
      ),
      [
        'type: Invalid value: "kubernetes.io/tls": field is immutable',
        'data: Forbidden: field is immutable when `immutable` is set',
      ],
    );
    assert.deepStrictEqual(check('', 'ConfigMap', { data: { a: 'x' } }, { immutable: true, data: { a: 'x' } }), [
      'immutable: Forbidden: field is immutable when `immutable` is set',
    ]);
  });
});

describe('Namespace, Node, Event validation', () => {
  it('Namespace finalizers must be qualified or standard', () => {
    assert.deepStrictEqual(
      check('', 'Namespace', { metadata: { name: 'a' }, spec: { finalizers: ['custom', 'example.com/ok'] } }),
      ['spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified'],
    );
  });

  it('Node taints, quantities, and fields fixed once set', () => {
    const node: JsonObject = {
      metadata: { name: 'n' },
      spec: {
        taints: [
          { key: 'k', effect: 'NoSchedule' },
          { key: 'k', effect: 'NoSchedule' },
          { key: 'k2', effect: 'Sometimes' },
        ],
      },
      status: { capacity: { cpu: '-1', pods: '1.5' } },
    };
    assert.deepStrictEqual(check('', 'Node', node), [
      'metadata.taints[1]: Duplicate value: core.Taint{Key:"k", Value:"", Effect:"NoSchedule", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair',
      'metadata.taints[2].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      'status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0',
      'status.capacity.pods: Invalid value: 1500m: must be an integer',
      'status.allocatable.cpu: Invalid value: "-1": must be greater than or equal to 0',
      'status.allocatable.pods: Invalid value: 1500m: must be an integer',
    ]);
    const old: JsonObject = { metadata: { name: 'n' }, spec: { podCIDRs: ['10.244.0.0/24'], providerID: 'aws://i-1' } };
    assert.deepStrictEqual(
      check(
        '',
        'Node',
        { metadata: { name: 'n' }, spec: { podCIDRs: ['10.244.1.0/24'], providerID: 'aws://i-2' } },
        old,
      ),
      [
        'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
        'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
      ],
    );
  });

  it('Event namespaces and the fields new-style events need', () => {
    const ev = (o: JsonObject): JsonObject => ({ metadata: { name: 'e', namespace: 'team' }, ...o });
    assert.deepStrictEqual(
      check('', 'Event', ev({ involvedObject: { kind: 'Pod', name: 'p', namespace: 'team' }, reason: 'X' })),
      [],
    );
    assert.deepStrictEqual(check('', 'Event', ev({ involvedObject: { kind: 'Pod', name: 'p', namespace: 'other' } })), [
      'involvedObject.namespace: Invalid value: "other": does not match event.namespace',
    ]);
    assert.deepStrictEqual(
      check(
        '',
        'Event',
        ev({
          eventTime: '2024-01-01T00:00:00.000000Z',
          involvedObject: { namespace: 'team' },
          reportingComponent: 'my/ctrl',
          reason: 'X',
        }),
      ),
      ['reportingInstance: Required value', 'action: Required value'],
    );
  });
});

describe('Lease, webhook and RuntimeClass validation', () => {
  it('Lease durations', () => {
    assert.deepStrictEqual(
      check('coordination.k8s.io', 'Lease', { spec: { leaseDurationSeconds: 0, leaseTransitions: -1 } }),
      [
        'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
        'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
      ],
    );
    assert.deepStrictEqual(
      check('coordination.k8s.io', 'Lease', {
        spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: '2024-01-01T00:00:00.000000Z' },
      }),
      [],
    );
  });

  const good = (): JsonObject => ({
    name: 'pods.example.com',
    clientConfig: { service: { name: 'hook', namespace: 'system', path: '/mutate' } },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
  });

  it('accepts a complete webhook', () => {
    assert.deepStrictEqual(
      check('admissionregistration.k8s.io', 'MutatingWebhookConfiguration', { webhooks: [good()] }),
      [],
    );
  });

  const cases: [string, (h: JsonObject) => void, string[]][] = [
    [
      'name',
      (h) => (h.name = 'hook'),
      ['webhooks[0].name: Invalid value: "hook": should be a domain with at least three segments separated by dots'],
    ],
    [
      'sideEffects missing',
      (h) => delete h.sideEffects,
      ['webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun'],
    ],
    [
      'sideEffects Some',
      (h) => (h.sideEffects = 'Some'),
      ['webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"'],
    ],
    [
      'admissionReviewVersions missing',
      (h) => delete h.admissionReviewVersions,
      ['webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1'],
    ],
    [
      'admissionReviewVersions unknown',
      (h) => (h.admissionReviewVersions = ['v2']),
      ['webhooks[0].admissionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1'],
    ],
    [
      'no client config',
      (h) => (h.clientConfig = {}),
      ['webhooks[0].clientConfig: Required value: exactly one of url or service is required'],
    ],
    [
      'url and service',
      (h) => ((h.clientConfig as JsonObject).url = 'https://x.example.com'),
      ['webhooks[0].clientConfig: Required value: exactly one of url or service is required'],
    ],
    [
      'plain http url with query',
      (h) => (h.clientConfig = { url: 'http://x.example.com/hook?a=b' }),
      [
        'webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]',
        'webhooks[0].clientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL',
      ],
    ],
    // kube-apiserver swaps the two in its messages (kubernetes/kubernetes#141353).
    [
      'service without name',
      (h) => delete (h.clientConfig as JsonObject & { service: JsonObject }).service.name,
      ['webhooks[0].clientConfig.service.namespace: Required value'],
    ],
    [
      'service path',
      (h) => ((h.clientConfig as JsonObject & { service: JsonObject }).service.path = 'mutate'),
      ['webhooks[0].clientConfig.service.path: Invalid value: "mutate": must start with a \'/\''],
    ],
    [
      'timeout',
      (h) => (h.timeoutSeconds = 31),
      ['webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds'],
    ],
    [
      'rules',
      (h) =>
        (h.rules = [
          {
            operations: ['CREATE', '*'],
            apiGroups: [],
            apiVersions: ['v1'],
            resources: ['*', 'pods'],
            scope: 'Global',
          },
        ]),
      [
        'webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"CREATE", "*"}: if \'*\' is present, must not specify other operations',
        'webhooks[0].rules[0].apiGroups: Required value',
        'webhooks[0].rules[0].resources: Invalid value: []string{"*", "pods"}: if \'*\' is present, must not specify other resources without subresources',
        'webhooks[0].rules[0].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"',
      ],
    ],
  ];
  for (const [name, mutate, want] of cases) {
    it(`webhook ${name}`, () => {
      const hook = good();
      mutate(hook);
      assert.deepStrictEqual(
        check('admissionregistration.k8s.io', 'ValidatingWebhookConfiguration', { webhooks: [hook] }),
        want,
      );
    });
  }

  it('webhook names are unique and legacy side effects stay allowed on update', () => {
    assert.deepStrictEqual(
      check('admissionregistration.k8s.io', 'ValidatingWebhookConfiguration', { webhooks: [good(), good()] }),
      ['webhooks[1].name: Duplicate value: "pods.example.com"'],
    );
    const legacy = { ...good(), sideEffects: 'Unknown' };
    assert.deepStrictEqual(
      check(
        'admissionregistration.k8s.io',
        'ValidatingWebhookConfiguration',
        { webhooks: [{ ...legacy }] },
        { webhooks: [legacy] },
      ),
      [],
    );
  });

  it('RuntimeClass handler', () => {
    assert.deepStrictEqual(check('node.k8s.io', 'RuntimeClass', { handler: '' }), [
      "handler: Invalid value: \"\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.deepStrictEqual(check('node.k8s.io', 'RuntimeClass', { handler: 'kata' }, { handler: 'runc' }), [
      'handler: Invalid value: "kata": field is immutable',
    ]);
  });
});
