// A CRD whose spec embeds core/v1 types through coreSchemas (as a kubebuilder type embeds
// []corev1.Container): the CRD installs, a realistic CR round-trips through kubectl 1.33 with the
// server's defaulting, and a wrongly typed container field is refused with 422 and its field path.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { s, type JsonSchema, type Static } from '../../../src/apimachinery/index.ts';
import { coreSchemas } from '../../../src/kube/index.ts';
import { KubeClient, customResource, customResourceDefinition } from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { kubectl } from '../../helpers/kubectl.ts';

const GROUP = 'alnair.example.com';
const AlnairPods = customResource(GROUP, 'v1alpha1', 'AlnairPod', 'alnairpods', true);

const specSchema = s.object(
  {
    containers: s.array(coreSchemas.Container, { listType: 'map', mapKeys: ['name'] }),
    volumes: s.array(coreSchemas.Volume, { listType: 'map', mapKeys: ['name'] }),
    tolerations: s.array(coreSchemas.Toleration),
    template: coreSchemas.PodTemplateSpec,
    target: coreSchemas.ObjectReference,
  },
  { required: ['containers'] },
);
type AlnairPodSpec = Static<typeof specSchema>;

const crd = customResourceDefinition({
  group: GROUP,
  version: 'v1alpha1',
  scope: 'Namespaced',
  names: { kind: 'AlnairPod', plural: 'alnairpods', singular: 'alnairpod' },
  openAPIV3Schema: s.object({ spec: specSchema }).json,
});

// Typed through the schema: a typo in a field name or a number for `image` does not compile.
const spec: AlnairPodSpec = {
  containers: [
    {
      name: 'app',
      image: 'registry.example.com/app:1.2',
      args: ['--listen=:8080'],
      ports: [
        { name: 'http', containerPort: 8080 },
        { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
      ],
      env: [
        { name: 'MODE', value: 'prod' },
        { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      ],
      resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m', memory: '64Mi' } },
      livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10 },
      readinessProbe: { tcpSocket: { port: 8080 }, initialDelaySeconds: 2 },
      volumeMounts: [
        { name: 'data', mountPath: '/data' },
        { name: 'config', mountPath: '/etc/app', readOnly: true },
      ],
    },
  ],
  volumes: [
    { name: 'data', emptyDir: { sizeLimit: '1Gi' } },
    { name: 'config', configMap: { name: 'app-config', items: [{ key: 'app.yaml', path: 'app.yaml' }] } },
  ],
  tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }],
};

function hasRef(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasRef);
  if (node === null || typeof node !== 'object') return false;
  return Object.entries(node).some(([k, v]) => k === '$ref' || k === 'allOf' || hasRef(v));
}

describe('coreSchemas in a CRD', () => {
  let cluster: TestCluster;
  let client: KubeClient;

  before(async () => {
    cluster = await startTestCluster();
    client = KubeClient.fromKubeconfigString(cluster.kubeconfig);
    const applied = await kubectl(cluster.kubeconfigPath, ['apply', '-f', '-'], {
      version: '1.33',
      input: JSON.stringify(crd),
    });
    assert.equal(applied.code, 0, applied.stderr);
    const established = await kubectl(
      cluster.kubeconfigPath,
      ['wait', '--for=condition=Established', '--timeout=30s', `crd/alnairpods.${GROUP}`],
      { version: '1.33' },
    );
    assert.equal(established.code, 0, established.stderr);
  });

  after(async () => {
    client.close();
    await cluster.stop();
  });

  it('emits a structural schema: references inlined, kube extensions kept', () => {
    const container = coreSchemas.Container.json;
    assert.equal(hasRef(container), false);
    assert.equal(hasRef(coreSchemas.PodTemplateSpec.json), false);
    const props = container.properties!;
    // k8s.io/api/core/v1/types.go, Container.Ports: +listType=map +listMapKey=containerPort
    // +listMapKey=protocol, and ContainerPort.Protocol +default="TCP"; the same in kubernetes'
    // published api/openapi-spec/v3/api__v1_openapi.json (io.k8s.api.core.v1.Container).
    assert.equal(props.ports['x-kubernetes-list-type'], 'map');
    assert.deepEqual(props.ports['x-kubernetes-list-map-keys'], ['containerPort', 'protocol']);
    assert.equal((props.ports.items!.properties!.protocol as JsonSchema).default, 'TCP');
    assert.deepEqual(props.ports.items!.required, ['containerPort']);
    // Container.Env: +listType=map +listMapKey=name; Container.Name is required.
    assert.deepEqual(props.env['x-kubernetes-list-map-keys'], ['name']);
    assert.deepEqual(container.required, ['name']);
    // HTTPGetAction.Port is an intstr.IntOrString: controller-gen's and kube's structural form.
    const port = props.livenessProbe.properties!.httpGet.properties!.port;
    assert.equal(port['x-kubernetes-int-or-string'], true);
    assert.deepEqual(port.anyOf, [{ type: 'integer' }, { type: 'string' }]);
    // ResourceList values are resource.Quantity: int-or-string with the Quantity pattern.
    const limit = props.resources.properties!.limits.additionalProperties!;
    assert.equal(limit['x-kubernetes-int-or-string'], true);
    assert.ok(limit.pattern?.startsWith('^(\\+|-)?'));
    // Descriptions travel with the inlined types; strategic-merge-patch annotations do not.
    assert.equal(typeof props.resources.description, 'string');
    assert.equal('x-kubernetes-patch-merge-key' in props.ports, false);
    // An embedded ObjectMeta is a bare object, as controller-gen emits it.
    assert.deepEqual(coreSchemas.PodTemplateSpec.json.properties!.metadata, {
      type: 'object',
      description: coreSchemas.PodTemplateSpec.json.properties!.metadata.description,
    });
  });

  it('round-trips a realistic container through kubectl 1.33, with the server defaults', async () => {
    const cr = { apiVersion: `${GROUP}/v1alpha1`, kind: 'AlnairPod', metadata: { name: 'demo' }, spec };
    const applied = await kubectl(cluster.kubeconfigPath, ['apply', '-n', 'default', '-f', '-'], {
      version: '1.33',
      input: JSON.stringify(cr),
    });
    assert.equal(applied.code, 0, applied.stderr);
    const got = await kubectl(cluster.kubeconfigPath, ['get', '-n', 'default', 'alnairpod', 'demo', '-o', 'json'], {
      version: '1.33',
    });
    assert.equal(got.code, 0, got.stderr);
    const read = JSON.parse(got.stdout) as KubeObject & { spec: AlnairPodSpec };
    // The only difference is the default the schema declares for the list-map key `protocol`.
    const expected = structuredClone(spec);
    expected.containers[0].ports![0].protocol = 'TCP';
    assert.deepEqual(read.spec, expected);
  });

  it('refuses a wrongly typed container field with 422 and the field path', async () => {
    const bad = structuredClone(spec) as unknown as { containers: Array<Record<string, unknown>> };
    bad.containers[0].ports = [{ containerPort: 'eighty' }];
    const cr = {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'AlnairPod',
      metadata: { name: 'bad', namespace: 'default' },
      spec: bad,
    };

    const applied = await kubectl(cluster.kubeconfigPath, ['apply', '-n', 'default', '-f', '-'], {
      version: '1.33',
      input: JSON.stringify(cr),
    });
    assert.notEqual(applied.code, 0);
    // apiextensions-apiserver's schema validation message (k8s.io/kube-openapi/pkg/validation/errors).
    assert.match(
      applied.stderr,
      /spec\.containers\[0\]\.ports\[0\]\.containerPort: Invalid value: "string": spec\.containers\[0\]\.ports\[0\]\.containerPort in body must be of type integer: "string"/,
    );

    await assert.rejects(client.create(AlnairPods, cr as KubeObject), (err: unknown) => {
      const e = err as { code?: number; reason?: string; details?: { causes?: Array<{ field?: string }> } };
      assert.equal(e.code, 422);
      assert.equal(e.reason, 'Invalid');
      assert.ok(e.details?.causes?.some((c) => c.field === 'spec.containers[0].ports[0].containerPort'));
      return true;
    });
  });

  it('refuses a malformed quantity in resources with its field path', async () => {
    const bad = structuredClone(spec);
    bad.containers[0].resources = { limits: { cpu: 'lots' } };
    const cr = {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'AlnairPod',
      metadata: { name: 'bad-cpu', namespace: 'default' },
      spec: bad,
    };
    await assert.rejects(client.create(AlnairPods, cr as KubeObject), (err: unknown) => {
      const e = err as { code?: number; details?: { causes?: Array<{ field?: string }> } };
      assert.equal(e.code, 422);
      assert.ok(e.details?.causes?.some((c) => c.field === 'spec.containers[0].resources.limits.cpu'));
      return true;
    });
  });
});
