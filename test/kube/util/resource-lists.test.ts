import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  canonicalizeQuantities,
  canonicalizeResourceList,
  hasQuantities,
  quantityDecodeError,
} from '../../../src/kube/util/resource-lists.ts';
import { QuantityError } from '../../../src/apimachinery/quantity/quantity.ts';

const FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

test('canonicalizeResourceList rounds up to milli units in place', () => {
  const list: Record<string, unknown> = {
    cpu: 0.5,
    memory: '1024Mi',
    'example.com/gpu': '1',
    tiny: '1n',
    odd: '1.500',
    exp: '1e3',
    empty: null,
  };
  assert.deepEqual(canonicalizeResourceList(list, 'spec.overhead'), []);
  assert.deepEqual(list, {
    cpu: '500m',
    memory: '1Gi',
    'example.com/gpu': '1',
    tiny: '1m',
    odd: '1.500',
    exp: '1e3',
    empty: '0',
  });
  assert.deepEqual(canonicalizeResourceList(undefined, 'x'), []);
});

test('canonicalizeResourceList reports unparseable entries', () => {
  const list = { cpu: 'lots', memory: '1Gi', gpu: true, disk: '32MMi' };
  const errs = canonicalizeResourceList(list, 'spec.containers[0].resources.limits');
  assert.deepEqual(errs, [
    {
      field: 'spec.containers[0].resources.limits[cpu]',
      reason: 'FieldValueInvalid',
      message: `Invalid value: "lots": ${FORMAT_WRONG}`,
    },
    {
      field: 'spec.containers[0].resources.limits[gpu]',
      reason: 'FieldValueInvalid',
      message: `Invalid value: true: ${FORMAT_WRONG}`,
    },
    {
      field: 'spec.containers[0].resources.limits[disk]',
      reason: 'FieldValueInvalid',
      message: `Invalid value: "32MMi": unable to parse quantity's suffix`,
    },
  ]);
  assert.equal(list.memory, '1Gi');
  assert.equal(list.cpu, 'lots');
});

test('canonicalizeQuantities walks pods, templates, nodes and storage kinds', () => {
  const pod = {
    spec: {
      containers: [{ name: 'a', resources: { requests: { cpu: '0.25', memory: '1.5Gi' }, limits: { cpu: 1 } } }],
      initContainers: [{ name: 'i', resources: { limits: { memory: '1000Mi' } } }],
      overhead: { cpu: '0.1' },
      volumes: [{ name: 'v', emptyDir: { sizeLimit: '0.5Gi' } }],
    },
    status: { containerStatuses: [{ allocatedResources: { cpu: '0.5' } }] },
  };
  assert.deepEqual(canonicalizeQuantities('', 'pods', pod), []);
  assert.deepEqual(pod.spec.containers[0].resources, {
    requests: { cpu: '250m', memory: '1536Mi' },
    limits: { cpu: '1' },
  });
  assert.deepEqual(pod.spec.initContainers[0].resources.limits, { memory: '1000Mi' });
  assert.deepEqual(pod.spec.overhead, { cpu: '100m' });
  assert.equal(pod.spec.volumes[0].emptyDir.sizeLimit, '512Mi');
  assert.deepEqual(pod.status.containerStatuses[0].allocatedResources, { cpu: '500m' });

  const node = {
    status: { capacity: { cpu: '4', memory: '8388608Ki', 'example.com/foo': '4' }, allocatable: { cpu: '3.5' } },
  };
  canonicalizeQuantities('', 'nodes', node);
  assert.deepEqual(node.status, {
    capacity: { cpu: '4', memory: '8Gi', 'example.com/foo': '4' },
    allocatable: { cpu: '3500m' },
  });

  const deploy = { spec: { template: { spec: { containers: [{ resources: { requests: { cpu: 0.1 } } }] } } } };
  canonicalizeQuantities('apps', 'deployments', deploy);
  assert.equal(deploy.spec.template.spec.containers[0].resources.requests.cpu, '100m');

  const cron = {
    spec: {
      jobTemplate: { spec: { template: { spec: { containers: [{ resources: { limits: { cpu: '2000m' } } }] } } } },
    },
  };
  canonicalizeQuantities('batch', 'cronjobs', cron);
  assert.equal(cron.spec.jobTemplate.spec.template.spec.containers[0].resources.limits.cpu, '2');

  const sts = { spec: { volumeClaimTemplates: [{ spec: { resources: { requests: { storage: '1024Mi' } } } }] } };
  canonicalizeQuantities('apps', 'statefulsets', sts);
  assert.equal(sts.spec.volumeClaimTemplates[0].spec.resources.requests.storage, '1Gi');

  const pvc = { spec: { resources: { requests: { storage: '0.5Gi' } } }, status: { capacity: { storage: '1Gi' } } };
  canonicalizeQuantities('', 'persistentvolumeclaims', pvc);
  assert.equal(pvc.spec.resources.requests.storage, '512Mi');

  const limits = {
    spec: { limits: [{ type: 'Container', max: { cpu: '0.5' }, defaultRequest: { memory: '1024Ki' } }] },
  };
  canonicalizeQuantities('', 'limitranges', limits);
  assert.deepEqual(limits.spec.limits[0], {
    type: 'Container',
    max: { cpu: '500m' },
    defaultRequest: { memory: '1Mi' },
  });

  const errs = canonicalizeQuantities('', 'pods', {
    spec: { containers: [{}, { resources: { requests: { cpu: 'x' } } }] },
  });
  assert.deepEqual(
    errs.map((e) => e.field),
    ['spec.containers[1].resources.requests[cpu]'],
  );
  assert.equal(hasQuantities('', 'configmaps'), false);
  assert.deepEqual(canonicalizeQuantities('', 'configmaps', { data: { cpu: '0.5' } }), []);
});

test('quantityDecodeError is the 400 kube-apiserver sends while decoding', () => {
  const errs = canonicalizeResourceList({ cpu: 'abc' }, 'spec.containers[0].resources.limits');
  const err = quantityDecodeError('Pod', 'v1', errs[0]);
  assert.equal(err.code, 400);
  assert.equal(err.reason, 'BadRequest');
  assert.equal(err.message, `Pod in version "v1" cannot be handled as a Pod: ${FORMAT_WRONG}`);
  assert.equal(
    quantityDecodeError('Deployment', 'v1', QuantityError.suffix()).message,
    `Deployment in version "v1" cannot be handled as a Deployment: unable to parse quantity's suffix`,
  );
});
