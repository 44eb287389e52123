import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinPatchFields, builtinSchemaInfo } from '../../../src/kube/patch/index.ts';
import type { ListKind } from '../../../src/kube/patch/index.ts';

const byName = (...keys: string[]): ListKind => ({ type: 'map', keys });
const set: ListKind = { type: 'set' };

const podSpec = (prefix: string): [string, ListKind][] => [
  [`${prefix}.containers`, byName('name')],
  [`${prefix}.initContainers`, byName('name')],
  [`${prefix}.ephemeralContainers`, byName('name')],
  [`${prefix}.containers.env`, byName('name')],
  [`${prefix}.initContainers.ports`, byName('containerPort', 'protocol')],
  [`${prefix}.ephemeralContainers.volumeMounts`, byName('mountPath')],
  [`${prefix}.containers.volumeDevices`, byName('devicePath')],
  [`${prefix}.imagePullSecrets`, byName('name')],
  [`${prefix}.volumes`, byName('name')],
  [`${prefix}.hostAliases`, byName('ip')],
  [`${prefix}.topologySpreadConstraints`, byName('topologyKey', 'whenUnsatisfiable')],
];

const expected: { group: string; kind: string; lists: [string, ListKind | undefined][] }[] = [
  {
    group: '',
    kind: 'Pod',
    lists: [
      ...podSpec('spec'),
      ['metadata.finalizers', set],
      ['metadata.ownerReferences', byName('uid')],
      ['status.conditions', byName('type')],
      ['status.podIPs', byName('ip')],
      ['spec.tolerations', undefined],
      ['spec.containers.args', undefined],
      ['spec.containers.envFrom', undefined],
      ['status.containerStatuses', undefined],
    ],
  },
  {
    group: 'apps',
    kind: 'Deployment',
    lists: [
      ...podSpec('spec.template.spec'),
      ['spec.template.metadata.finalizers', set],
      ['status.conditions', byName('type')],
      ['spec.containers', undefined],
    ],
  },
  {
    group: 'apps',
    kind: 'StatefulSet',
    lists: [...podSpec('spec.template.spec'), ['spec.volumeClaimTemplates', undefined]],
  },
  {
    group: 'apps',
    kind: 'DaemonSet',
    lists: [...podSpec('spec.template.spec'), ['status.conditions', byName('type')]],
  },
  { group: 'apps', kind: 'ReplicaSet', lists: podSpec('spec.template.spec') },
  { group: 'batch', kind: 'Job', lists: [...podSpec('spec.template.spec'), ['status.conditions', byName('type')]] },
  { group: 'batch', kind: 'CronJob', lists: podSpec('spec.jobTemplate.spec.template.spec') },
  { group: '', kind: 'ReplicationController', lists: podSpec('spec.template.spec') },
  { group: '', kind: 'PodTemplate', lists: podSpec('template.spec') },
  {
    group: '',
    kind: 'Node',
    lists: [
      ['status.addresses', byName('type')],
      ['status.conditions', byName('type')],
      ['spec.podCIDRs', set],
      ['spec.taints', undefined],
    ],
  },
  { group: '', kind: 'Service', lists: [['spec.ports', byName('port', 'protocol')]] },
  { group: '', kind: 'ServiceAccount', lists: [['secrets', byName('name')]] },
  {
    group: 'admissionregistration.k8s.io',
    kind: 'MutatingWebhookConfiguration',
    lists: [
      ['webhooks', byName('name')],
      ['webhooks.matchConditions', byName('name')],
      ['webhooks.rules', undefined],
    ],
  },
  {
    group: 'example.com',
    kind: 'Widget',
    lists: [
      ['metadata.ownerReferences', byName('uid')],
      ['metadata.finalizers', set],
      ['status.conditions', undefined],
      ['spec.containers', undefined],
    ],
  },
];

for (const { group, kind, lists } of expected) {
  test(`builtin schema: ${group || 'core'}/${kind} lists`, () => {
    const info = builtinSchemaInfo(group, kind);
    for (const [path, want] of lists) assert.deepEqual(info.listKind(path.split('.')), want, path);
  });
}

test('builtin schema: retainKeys, atomic maps and key defaults', () => {
  const deploy = builtinSchemaInfo('apps', 'Deployment');
  assert.equal(deploy.retainKeys(['spec', 'strategy']), true);
  assert.equal(deploy.retainKeys(['spec', 'template', 'spec', 'volumes']), true);
  assert.equal(deploy.retainKeys(['spec', 'template', 'spec', 'containers']), false);
  assert.equal(builtinSchemaInfo('apps', 'DaemonSet').retainKeys(['spec', 'updateStrategy']), false);
  assert.equal(builtinSchemaInfo('', 'Pod').retainKeys(['spec', 'volumes']), true);

  assert.equal(builtinSchemaInfo('policy', 'PodDisruptionBudget').isAtomicMap(['spec', 'selector']), true);
  assert.equal(deploy.isAtomicMap(['spec', 'selector']), false);

  assert.equal(builtinSchemaInfo('', 'Pod').listKeyDefault(['spec', 'containers', 'ports'], 'protocol'), 'TCP');
  assert.equal(builtinSchemaInfo('', 'Service').listKeyDefault(['spec', 'ports'], 'protocol'), 'TCP');
  assert.equal(builtinSchemaInfo('', 'Service').listKeyDefault(['spec', 'ports'], 'constructor'), undefined);
  assert.equal(builtinSchemaInfo('', 'Pod').listKeyDefault(['spec', 'containers'], 'name'), undefined);
});

test('builtin schema: field names containing dots or slashes do not alias other paths', () => {
  const info = builtinSchemaInfo('', 'Pod');
  assert.equal(info.listKind(['spec.containers']), undefined);
  assert.equal(info.listKind(['metadata', 'labels', 'spec', 'containers']), undefined);
  assert.equal(info.listKind(['metadata', 'annotations', 'example.com/finalizers']), undefined);
});

test('builtin schema: builtinPatchFields lists metadata first, then the kind', () => {
  const fields = builtinPatchFields('apps', 'Deployment').map((f) => f.path.join('.'));
  assert.deepEqual(fields.slice(0, 2), ['metadata.finalizers', 'metadata.ownerReferences']);
  assert.ok(fields.includes('spec.strategy'));
  assert.deepEqual(
    builtinPatchFields('example.com', 'Widget').map((f) => f.path.join('.')),
    ['metadata.finalizers', 'metadata.ownerReferences'],
  );
});
