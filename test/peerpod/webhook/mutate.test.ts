// The pod mutation, table-driven: sums over containers and init containers, rounding up, the
// limit-vs-request rule, GPUs, the extended resource, idempotence, and preserve mode.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AdmissionDenied } from '../../../src/runtime/index.ts';
import { Annotations, mutatePod } from '../../../src/peerpod/webhook/index.ts';
import type { MutatorOptions, Pod } from '../../../src/peerpod/webhook/index.ts';

type R = { requests?: Record<string, string>; limits?: Record<string, string> };

function pod(containers: R[], init: R[] = [], runtimeClassName = 'kata-remote'): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: {
      runtimeClassName,
      containers: containers.map((resources, i) => ({ name: `c${i}`, image: 'x', resources })),
      ...(init.length
        ? { initContainers: init.map((resources, i) => ({ name: `i${i}`, image: 'x', resources })) }
        : {}),
    },
  };
}

const VM = { requests: { 'kata.peerpods.io/vm': '1' }, limits: { 'kata.peerpods.io/vm': '1' } };

interface Case {
  name: string;
  containers: R[];
  init?: R[];
  want: { vcpus?: string; memory?: string; gpus?: string };
}

const cases: Case[] = [
  { name: 'no resources: no annotation', containers: [{}], want: {} },
  { name: 'cpu request only', containers: [{ requests: { cpu: '2' } }], want: { vcpus: '2' } },
  { name: 'fractional cpu rounds up', containers: [{ requests: { cpu: '500m' } }], want: { vcpus: '1' } },
  { name: 'cpu 1001m rounds up to 2', containers: [{ requests: { cpu: '1001m' } }], want: { vcpus: '2' } },
  {
    name: 'limit >= request: the limit',
    containers: [{ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '3', memory: '2Gi' } }],
    want: { vcpus: '3', memory: '2048' },
  },
  {
    name: 'limit below request: the request',
    containers: [{ requests: { cpu: '2' }, limits: { cpu: '1' } }],
    want: { vcpus: '2' },
  },
  {
    name: 'limit without request (upstream: nothing; the API server defaults requests from limits first)',
    containers: [{ limits: { cpu: '2' } }],
    want: {},
  },
  {
    name: 'summed over containers',
    containers: [{ requests: { cpu: '250m', memory: '100Mi' } }, { requests: { cpu: '250m', memory: '28Mi' } }],
    want: { vcpus: '1', memory: '128' },
  },
  {
    name: 'init containers are added, not max-ed',
    containers: [{ requests: { cpu: '1', memory: '256Mi' } }],
    init: [{ requests: { cpu: '1', memory: '256Mi' } }],
    want: { vcpus: '2', memory: '512' },
  },
  { name: 'memory in MiB rounded up', containers: [{ requests: { memory: '1M' } }], want: { memory: '1' } },
  { name: 'memory 1Gi + 1 byte', containers: [{ requests: { memory: '1073741825' } }], want: { memory: '1025' } },
  { name: 'decimal exponent', containers: [{ requests: { memory: '1e9' } }], want: { memory: '954' } },
  {
    name: 'gpu request counted',
    containers: [
      { requests: { 'nvidia.com/gpu': '1' }, limits: { 'nvidia.com/gpu': '1' } },
      { requests: { 'nvidia.com/gpu': '2' } },
    ],
    want: { gpus: '3' },
  },
];

describe('mutatePod (upstream mode)', () => {
  for (const c of cases) {
    it(c.name, () => {
      const p = pod(c.containers, c.init);
      const r = mutatePod(p);
      assert.equal(r.matched, true);
      const ann = p.metadata.annotations ?? {};
      assert.equal(ann[Annotations.vcpus], c.want.vcpus);
      assert.equal(ann[Annotations.memory], c.want.memory);
      assert.equal(ann[Annotations.gpus], c.want.gpus);
      assert.deepEqual(p.spec?.containers?.[0].resources, VM);
      for (const x of p.spec?.containers?.slice(1) ?? []) assert.deepEqual(x.resources, {});
      for (const x of p.spec?.initContainers ?? []) assert.deepEqual(x.resources, {});
    });
  }

  it('leaves other runtime classes and pods without one untouched', () => {
    for (const rc of ['kata', 'runc', undefined]) {
      const p = pod([{ requests: { cpu: '1' } }], [], rc ?? 'x');
      if (rc === undefined) delete p.spec?.runtimeClassName;
      const before = structuredClone(p);
      assert.equal(mutatePod(p).matched, false);
      assert.deepEqual(p, before);
    }
  });

  it('honours TARGET_RUNTIMECLASS and POD_VM_EXTENDED_RESOURCE', () => {
    const p = pod([{ requests: { cpu: '1' } }], [], 'my-class');
    mutatePod(p, { targetRuntimeClass: 'my-class', extendedResource: 'example.com/vm' });
    assert.deepEqual(p.spec?.containers?.[0].resources, {
      requests: { 'example.com/vm': '1' },
      limits: { 'example.com/vm': '1' },
    });
  });

  it('is idempotent when reinvoked', () => {
    for (const opts of [{}, { dropResources: 'preserve' }] as MutatorOptions[]) {
      const p = pod([{ requests: { cpu: '1500m', memory: '1Gi', 'ephemeral-storage': '1Gi' } }, {}]);
      mutatePod(p, opts);
      const once = structuredClone(p);
      mutatePod(p, opts);
      assert.deepEqual(p, once);
    }
  });

  it('drops ephemeral-storage and other extended resources with a warning', () => {
    const p = pod([
      { requests: { 'ephemeral-storage': '1Gi', 'example.com/dongle': '1' }, limits: { 'example.com/dongle': '1' } },
    ]);
    const r = mutatePod(p);
    assert.deepEqual(p.spec?.containers?.[0].resources, VM);
    assert.match(r.warnings.join(), /ephemeral-storage, example\.com\/dongle/);
  });

  it('denies a malformed quantity with 400', () => {
    assert.throws(
      () => mutatePod(pod([{ requests: { cpu: 'lots' } }])),
      (e: unknown) => e instanceof AdmissionDenied && e.code === 400 && /requests\.cpu/.test(e.message),
    );
  });
});

describe('mutatePod (preserve mode)', () => {
  const preserve: MutatorOptions = { dropResources: 'preserve' };

  it('keeps ephemeral-storage and extended resources, still sizes the VM from cpu/memory/gpu', () => {
    const p = pod([
      { requests: { cpu: '1', 'ephemeral-storage': '2Gi', 'nvidia.com/gpu': '1' }, limits: { 'nvidia.com/gpu': '1' } },
      { requests: { 'example.com/dongle': '1' }, limits: { 'example.com/dongle': '1' } },
    ]);
    const r = mutatePod(p, preserve);
    assert.deepEqual(r.warnings, []);
    assert.equal(p.metadata.annotations?.[Annotations.gpus], '1');
    assert.deepEqual(p.spec?.containers?.[0].resources, {
      requests: { 'ephemeral-storage': '2Gi', 'kata.peerpods.io/vm': '1' },
      limits: { 'kata.peerpods.io/vm': '1' },
    });
    assert.deepEqual(p.spec?.containers?.[1].resources, {
      requests: { 'example.com/dongle': '1' },
      limits: { 'example.com/dongle': '1' },
    });
  });

  it('denies hugepages with a message naming the field', () => {
    assert.throws(
      () =>
        mutatePod(
          pod([{ requests: { memory: '1Gi', 'hugepages-2Mi': '64Mi' }, limits: { 'hugepages-2Mi': '64Mi' } }]),
          preserve,
        ),
      (e: unknown) =>
        e instanceof AdmissionDenied && /containers\[0\]\.resources\.requests\.hugepages-2Mi/.test(e.message),
    );
  });
});
