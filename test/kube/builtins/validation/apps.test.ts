import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyDefaults, validate } from '../../../../src/kube/builtins/index.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';

function check(group: string, kind: string, o: JsonObject, old?: JsonObject): string[] {
  applyDefaults(group, kind, o, old ? 'update' : 'create');
  return validate(group, kind, o, old).map((e) => `${e.field}: ${e.message}`);
}

function created(group: string, kind: string, o: JsonObject): JsonObject {
  applyDefaults(group, kind, o, 'create');
  return o;
}

const template = (labels: JsonObject | null = { app: 'web' }): JsonObject => ({
  metadata: labels ? { labels } : {},
  spec: { containers: [{ name: 'web', image: 'nginx:1' }] },
});

const workload = (spec: JsonObject): JsonObject => ({
  metadata: { name: 'web', namespace: 'default', uid: 'u-1' },
  spec,
});

describe('Deployment validation', () => {
  const cases: [string, JsonObject, string[]][] = [
    ['valid', { selector: { matchLabels: { app: 'web' } }, template: template() }, []],
    [
      'selector missing',
      { template: template() },
      [
        'spec.selector: Required value',
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
      ],
    ],
    [
      'selector not matching',
      { selector: { matchLabels: { app: 'web' } }, template: template({ app: 'api', tier: 'x' }) },
      [
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"api", "tier":"x"}: `selector` does not match template `labels`',
      ],
    ],
    [
      'template without labels',
      { selector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, template: template(null) },
      [
        'spec.template.metadata.labels: Invalid value: map[string]string(nil): `selector` does not match template `labels`',
      ],
    ],
    [
      'empty selector',
      { selector: {}, template: template() },
      [
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
      ],
    ],
    [
      'malformed selector',
      { selector: { matchExpressions: [{ key: 'app', operator: 'Near', values: ['x'] }] }, template: template() },
      [
        'spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"app", Operator:"Near", Values:[]string{"x"}}}}: invalid label selector',
      ],
    ],
    [
      'negative replicas and zero surge and unavailable',
      {
        replicas: -1,
        selector: { matchLabels: { app: 'web' } },
        template: template(),
        strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } },
      },
      [
        'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
        'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0%: may not be 0 when `maxSurge` is 0',
      ],
    ],
    [
      'bad percentages',
      {
        selector: { matchLabels: { app: 'web' } },
        template: template(),
        strategy: { rollingUpdate: { maxSurge: 'lots', maxUnavailable: '150%' } },
      },
      [
        "spec.strategy.rollingUpdate.maxSurge: Invalid value: lots: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
        'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 150%: must not be greater than 100%',
      ],
    ],
    [
      'Recreate with rollingUpdate',
      {
        selector: { matchLabels: { app: 'web' } },
        template: template(),
        strategy: { type: 'Recreate', rollingUpdate: {} },
      },
      ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"],
    ],
    [
      'unknown strategy type',
      { selector: { matchLabels: { app: 'web' } }, template: template(), strategy: { type: 'BlueGreen' } },
      [
        'spec.strategy: Unsupported value: apps.DeploymentStrategy{Type:"BlueGreen", RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: supported values: "Recreate", "RollingUpdate"',
      ],
    ],
    [
      'template restartPolicy and activeDeadlineSeconds',
      {
        selector: { matchLabels: { app: 'web' } },
        template: {
          ...template(),
          spec: { restartPolicy: 'Never', activeDeadlineSeconds: 5, containers: [{ name: 'web', image: 'nginx:1' }] },
        },
      },
      [
        'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
        'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported',
      ],
    ],
    [
      'template pod spec errors are reported under spec.template.spec',
      { selector: { matchLabels: { app: 'web' } }, template: { ...template(), spec: { containers: [] } } },
      ['spec.template.spec.containers: Required value'],
    ],
    [
      'progressDeadlineSeconds not above minReadySeconds',
      { selector: { matchLabels: { app: 'web' } }, template: template(), minReadySeconds: 600 },
      ['spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds'],
    ],
  ];
  for (const [name, spec, want] of cases) {
    it(name, () => assert.deepStrictEqual(check('apps', 'Deployment', workload(spec)), want));
  }

  it('keeps the selector immutable', () => {
    const old = created(
      'apps',
      'Deployment',
      workload({ selector: { matchLabels: { app: 'web' } }, template: template() }),
    );
    const next = workload({
      selector: { matchLabels: { app: 'web', v: '2' } },
      template: template({ app: 'web', v: '2' }),
    });
    assert.deepStrictEqual(check('apps', 'Deployment', next, old), [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "v":"2"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    ]);
    assert.deepStrictEqual(
      check(
        'apps',
        'Deployment',
        workload({ replicas: 3, selector: { matchLabels: { app: 'web' } }, template: template() }),
        old,
      ),
      [],
    );
  });
});

describe('ReplicaSet, DaemonSet, StatefulSet and Job validation', () => {
  it('ReplicaSet: same template rules, mutable selector', () => {
    assert.deepStrictEqual(
      check('apps', 'ReplicaSet', workload({ selector: { matchLabels: { app: 'x' } }, template: template() })),
      [
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
      ],
    );
    const old = created(
      'apps',
      'ReplicaSet',
      workload({ selector: { matchLabels: { app: 'web' } }, template: template() }),
    );
    assert.deepStrictEqual(
      check(
        'apps',
        'ReplicaSet',
        workload({
          selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }] },
          template: template(),
        }),
        old,
      ),
      [],
    );
  });

  it('DaemonSet: no selector means no match; strategy rules; immutable selector', () => {
    assert.deepStrictEqual(check('apps', 'DaemonSet', workload({ template: template() })), [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ]);
    assert.deepStrictEqual(
      check(
        'apps',
        'DaemonSet',
        workload({
          selector: { matchLabels: { app: 'web' } },
          template: template(),
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } },
        }),
      ),
      ['spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero'],
    );
    assert.deepStrictEqual(
      check(
        'apps',
        'DaemonSet',
        workload({
          selector: { matchLabels: { app: 'web' } },
          template: template(),
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } },
        }),
      ),
      ['spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0'],
    );
    const old = created(
      'apps',
      'DaemonSet',
      workload({ selector: { matchLabels: { app: 'web' } }, template: template() }),
    );
    assert.deepStrictEqual(
      check(
        'apps',
        'DaemonSet',
        workload({
          selector: { matchLabels: {}, matchExpressions: [{ key: 'app', operator: 'Exists' }] },
          template: template(),
        }),
        old,
      ),
      [
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{}, MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"app", Operator:"Exists", Values:[]string(nil)}}}: field is immutable',
      ],
    );
  });

  it('StatefulSet: selector, policies, and the fields an update may touch', () => {
    assert.deepStrictEqual(
      check('apps', 'StatefulSet', workload({ selector: {}, template: template(), podManagementPolicy: 'Random' })),
      [
        "spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'",
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for statefulset',
      ],
    );
    const spec = (): JsonObject => ({
      serviceName: 'web',
      selector: { matchLabels: { app: 'web' } },
      template: template(),
    });
    const old = created('apps', 'StatefulSet', workload(spec()));
    assert.deepStrictEqual(
      check('apps', 'StatefulSet', workload({ ...spec(), replicas: 5, minReadySeconds: 3 }), old),
      [],
    );
    assert.deepStrictEqual(check('apps', 'StatefulSet', workload({ ...spec(), serviceName: 'other' }), old), [
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ]);
  });

  it('Job: restartPolicy must be OnFailure or Never', () => {
    assert.deepStrictEqual(check('batch', 'Job', workload({ template: template() })), [
      'spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"',
    ]);
    assert.deepStrictEqual(
      check(
        'batch',
        'Job',
        workload({
          template: { ...template(), spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i:1' }] } },
        }),
      ),
      [],
    );
  });
});
