import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyDefaults, validate } from '../../../../src/kube/builtins/index.ts';
import { invalid } from '../../../../src/apimachinery/errors/index.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { toCauses } from '../../../../src/apimachinery/validation/field-errors.ts';

/** Defaults, then validation, rendered as kube prints each cause: `field: message`. */
function check(spec: JsonObject, old?: JsonObject): string[] {
  const pod: JsonObject = { metadata: { name: 'p', namespace: 'default' }, spec };
  applyDefaults('', 'Pod', pod, old ? 'update' : 'create', { old });
  return validate('', 'Pod', pod, old).map((e) => `${e.field}: ${e.message}`);
}

function createdPod(spec: JsonObject): JsonObject {
  const pod: JsonObject = { metadata: { name: 'p', namespace: 'default' }, spec };
  applyDefaults('', 'Pod', pod, 'create');
  return pod;
}

const c = (extra: JsonObject = {}): JsonObject => ({ name: 'app', image: 'nginx:1', ...extra });

const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe('Pod validation', () => {
  const cases: [string, JsonObject, string[]][] = [
    ['a valid pod', { containers: [c()] }, []],
    ['no containers', { containers: [] }, ['spec.containers: Required value']],
    ['missing containers field', {}, ['spec.containers: Required value']],
    ['container name missing', { containers: [c({ name: '' })] }, ['spec.containers[0].name: Required value']],
    [
      'container name not a DNS label',
      { containers: [c({ name: 'App_1' })] },
      [`spec.containers[0].name: Invalid value: "App_1": ${LABEL_MSG}`],
    ],
    ['duplicate container names', { containers: [c(), c()] }, ['spec.containers[1].name: Duplicate value: "app"']],
    [
      'init container named like a container',
      { containers: [c()], initContainers: [c()] },
      ['spec.initContainers[0].name: Duplicate value: "app"'],
    ],
    ['image missing', { containers: [c({ image: '' })] }, ['spec.containers[0].image: Required value']],
    [
      'image with whitespace',
      { containers: [c({ image: 'nginx ' })] },
      ['spec.containers[0].image: Invalid value: "nginx ": must not have leading or trailing whitespace'],
    ],
    [
      'ports out of range and without containerPort',
      {
        containers: [
          c({ ports: [{ containerPort: 70000 }, { containerPort: 0 }, { containerPort: 80, hostPort: -1 }] }),
        ],
      },
      [
        'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
        'spec.containers[0].ports[1].containerPort: Required value',
        'spec.containers[0].ports[2].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive',
      ],
    ],
    [
      'bad port names and protocol',
      {
        containers: [
          c({
            ports: [
              { containerPort: 80, name: 'http' },
              { containerPort: 81, name: 'http' },
              { containerPort: 82, name: '123', protocol: 'ICMP' },
            ],
          }),
        ],
      },
      [
        'spec.containers[0].ports[1].name: Duplicate value: "http"',
        'spec.containers[0].ports[2].name: Invalid value: "123": must contain at least one letter (a-z)',
        'spec.containers[0].ports[2].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      ],
    ],
    [
      'host port conflict',
      {
        containers: [
          c({ ports: [{ containerPort: 80, hostPort: 8080 }] }),
          c({ name: 'b', ports: [{ containerPort: 81, hostPort: 8080 }] }),
        ],
      },
      ['spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"'],
    ],
    [
      'restartPolicy',
      { containers: [c()], restartPolicy: 'Sometimes' },
      ['spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'],
    ],
    [
      'dnsPolicy None without config',
      { containers: [c()], dnsPolicy: 'None' },
      ['spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None'],
    ],
    [
      'pull policy',
      { containers: [c({ imagePullPolicy: 'Sometimes' })] },
      [
        'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
      ],
    ],
    [
      'requests above limits',
      {
        containers: [
          c({ resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '2', memory: '512Mi' } } }),
        ],
      },
      ['spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'],
    ],
    [
      'negative and unknown resources',
      { containers: [c({ resources: { requests: { memory: '-1', gpu: '1' } } })] },
      [
        'spec.containers[0].resources.requests[gpu]: Invalid value: gpu: must be a standard resource type or fully qualified',
        'spec.containers[0].resources.requests[gpu]: Invalid value: gpu: must be a standard resource for containers',
        'spec.containers[0].resources.requests[memory]: Invalid value: "-1": must be greater than or equal to 0',
      ],
    ],
    [
      'extended resources must be whole and request = limit',
      {
        containers: [
          c({ resources: { limits: { 'example.com/gpu': '500m' }, requests: { 'example.com/gpu': '250m' } } }),
        ],
      },
      [
        'spec.containers[0].resources.limits[example.com/gpu]: Invalid value: 500m: must be an integer',
        'spec.containers[0].resources.requests[example.com/gpu]: Invalid value: 250m: must be an integer',
        'spec.containers[0].resources.requests: Invalid value: "250m": must be equal to example.com/gpu limit of 500m',
      ],
    ],
    [
      'env names and sources',
      {
        containers: [
          c({
            env: [
              { name: '' },
              { name: 'A=B' },
              { name: 'X', value: 'v', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              { name: 'Y', valueFrom: {} },
              { name: 'Z', valueFrom: { fieldRef: { fieldPath: 'spec.restartPolicy' } } },
              { name: 'W', valueFrom: { fieldRef: { fieldPath: 'nope' } } },
              { name: 'S', valueFrom: { secretKeyRef: { name: 's', key: '' } } },
            ],
          }),
        ],
      },
      [
        'spec.containers[0].env[0].name: Required value',
        'spec.containers[0].env[1].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than \'=\'',
        'spec.containers[0].env[2].valueFrom: Invalid value: "": may not be specified when `value` is not empty',
        'spec.containers[0].env[3].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
        'spec.containers[0].env[4].valueFrom.fieldRef.fieldPath: Unsupported value: "spec.restartPolicy": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"',
        'spec.containers[0].env[5].valueFrom.fieldRef.fieldPath: Invalid value: "nope": error converting fieldPath: field label not supported: nope',
        'spec.containers[0].env[6].valueFrom.secretKeyRef.key: Required value',
      ],
    ],
    [
      'volume mounts and volumes',
      {
        volumes: [{ name: 'data', secret: {} }, { name: 'cfg', configMap: { name: 'c' } }, { name: 'cfg' }],
        containers: [
          c({
            volumeMounts: [
              { name: 'missing', mountPath: '/a' },
              { name: 'cfg', mountPath: '/a' },
              { name: 'cfg', mountPath: '' },
            ],
          }),
        ],
      },
      [
        'spec.volumes[0].secret.secretName: Required value',
        'spec.volumes[2].name: Duplicate value: "cfg"',
        'spec.containers[0].volumeMounts[0].name: Not found: "missing"',
        'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/a": must be unique',
        'spec.containers[0].volumeMounts[2].mountPath: Required value',
      ],
    ],
    [
      'probes',
      {
        containers: [
          c({
            livenessProbe: { successThreshold: 2, exec: { command: [] } },
            readinessProbe: { httpGet: { port: 'http-port-too-long-name' }, tcpSocket: { port: 80 } },
            startupProbe: { initialDelaySeconds: -1 },
          }),
        ],
      },
      [
        'spec.containers[0].livenessProbe.exec.command: Required value',
        'spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
        'spec.containers[0].readinessProbe.httpGet.port: Invalid value: "http-port-too-long-name": must be no more than 15 characters',
        'spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type',
        'spec.containers[0].startupProbe: Required value: must specify a handler type',
        'spec.containers[0].startupProbe.initialDelaySeconds: Invalid value: -1: must be greater than or equal to 0',
      ],
    ],
    [
      'init container probes need restartPolicy Always',
      { containers: [c()], initContainers: [c({ name: 'init', livenessProbe: { exec: { command: ['true'] } } })] },
      [
        'spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always',
      ],
    ],
    [
      'regular containers cannot set restartPolicy',
      { containers: [c({ restartPolicy: 'Always' })] },
      ['spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers'],
    ],
    [
      'tolerations',
      {
        containers: [c()],
        tolerations: [
          { operator: 'Equal', value: 'x' },
          { key: 'k', operator: 'Exists', value: 'v' },
          { key: 'k', tolerationSeconds: 5, effect: 'NoSchedule' },
        ],
      },
      [
        'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
        'spec.tolerations[1].operator: Invalid value: "v": value must be empty when `operator` is \'Exists\'',
        'spec.tolerations[2].effect: Invalid value: "NoSchedule": effect must be \'NoExecute\' when `tolerationSeconds` is set',
      ],
    ],
    [
      'activeDeadlineSeconds',
      { containers: [c()], activeDeadlineSeconds: 0 },
      ['spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive'],
    ],
    [
      'ephemeral containers and gated nodeName on create',
      {
        containers: [c()],
        ephemeralContainers: [c({ name: 'debug' })],
        nodeName: 'n1',
        schedulingGates: [{ name: 'g' }],
      },
      [
        'spec.ephemeralContainers: Forbidden: cannot be set on create',
        'spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared',
      ],
    ],
  ];
  for (const [name, spec, want] of cases) {
    it(name, () => assert.deepStrictEqual(check(spec), want));
  }

  it('renders as the Invalid status kube returns', () => {
    const causes = toCauses(validate('', 'Pod', createdPod({ containers: [] })));
    assert.equal(invalid('', 'Pod', 'p', causes).message, 'Pod "p" is invalid: spec.containers: Required value');
  });
});

describe('Pod update validation', () => {
  const FORBIDDEN_PREFIX =
    'spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n';
  const old = createdPod({ containers: [c({ ports: [{ containerPort: 80 }] })], activeDeadlineSeconds: 100 });

  it('allows image, activeDeadlineSeconds decreases and toleration additions', () => {
    const next = structuredClone(old.spec) as JsonObject;
    (next.containers as JsonObject[])[0].image = 'nginx:2';
    next.activeDeadlineSeconds = 50;
    next.tolerations = [...(next.tolerations as JsonObject[]), { key: 'k', operator: 'Exists' }];
    assert.deepStrictEqual(check(next, old), []);
  });

  it('accepts a resubmitted manifest: defaults and admission fill the same values back in', () => {
    assert.deepStrictEqual(
      check(
        {
          containers: [c({ ports: [{ containerPort: 80 }] })],
          activeDeadlineSeconds: 100,
          serviceAccountName: 'default',
        },
        old,
      ),
      [],
    );
  });

  it('forbids other spec changes, naming what changed', () => {
    const next = structuredClone(old.spec) as JsonObject;
    (next.containers as JsonObject[])[0].ports = [{ containerPort: 8080, protocol: 'TCP' }];
    const errs = check(next, old);
    assert.equal(errs.length, 1);
    assert.ok(errs[0].startsWith(FORBIDDEN_PREFIX), errs[0]);
    assert.ok(errs[0].includes('spec.containers[0].ports[0].containerPort'), errs[0]);
  });

  const cases: [string, (s: JsonObject) => void, string[]][] = [
    [
      'adding a container',
      (s) => (s.containers as JsonObject[]).push(c({ name: 'b' })),
      ['spec.containers: Forbidden: pod updates may not add or remove containers'],
    ],
    [
      'raising activeDeadlineSeconds',
      (s) => (s.activeDeadlineSeconds = 200),
      ['spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value'],
    ],
    [
      'clearing activeDeadlineSeconds',
      (s) => delete s.activeDeadlineSeconds,
      ['spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value'],
    ],
    [
      'changing a toleration',
      (s) => ((s.tolerations as JsonObject[])[0].operator = 'Equal'),
      ['spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds'],
    ],
  ];
  for (const [name, mutate, want] of cases) {
    it(name, () => {
      const next = structuredClone(old.spec) as JsonObject;
      mutate(next);
      const errs = check(next, old).filter((e) => !e.startsWith('spec: Forbidden'));
      assert.deepStrictEqual(errs, want);
    });
  }
});
