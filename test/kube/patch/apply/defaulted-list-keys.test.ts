// Server-side apply of map-list items that omit a key field the schema defaults: container ports
// without `protocol` (keys containerPort + protocol, protocol defaulting to TCP), in a Pod and in a
// custom resource embedding a Container the way controller-gen writes it. kube names such an item
// with the key's schema default (structured-merge-diff typed/helpers.go
// keyedAssociativeListItemToPathElement / getAssociativeKeyDefault, from the OpenAPI `default`
// through kube-openapi pkg/schemaconv), so the applied item and the stored, defaulted one are the
// same item: applying twice changes nothing, and managedFields name the port with protocol TCP.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster();
});
after(async () => {
  await cp?.stop();
});

const version = '1.33';
const k = (args: string[], input?: string) =>
  kubectl(cp.kubeconfigPath, args, input === undefined ? { version } : { version, input });

// What `kubectl get -o json` shows of a port the applier named by containerPort alone.
const portKey = 'k:{"containerPort":8080,"protocol":"TCP"}';

const ports = [{ containerPort: 8080, name: 'http' }];

const pod = JSON.stringify({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default' },
  spec: { containers: [{ name: 'web', image: 'nginx:1.25', ports }] },
});

// controller-gen's schema for corev1.ContainerPort inside an embedded Container (trimmed).
const containerPortSchema: JsonObject = {
  type: 'object',
  required: ['containerPort'],
  properties: {
    containerPort: { type: 'integer', format: 'int32' },
    name: { type: 'string' },
    protocol: { type: 'string', default: 'TCP' },
  },
};
const crd = JSON.stringify({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'sidecars.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'sidecars', singular: 'sidecar', kind: 'Sidecar', listKind: 'SidecarList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  container: {
                    type: 'object',
                    properties: {
                      name: { type: 'string' },
                      image: { type: 'string' },
                      ports: {
                        type: 'array',
                        items: containerPortSchema,
                        'x-kubernetes-list-type': 'map',
                        'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
});
const sidecar = JSON.stringify({
  apiVersion: 'example.com/v1',
  kind: 'Sidecar',
  metadata: { name: 'proxy', namespace: 'default' },
  spec: { container: { name: 'proxy', image: 'envoy:1.30', ports } },
});

async function applyTwice(resource: string, manifest: string, portsAt: (o: JsonObject) => unknown) {
  const first = await k(['apply', '--server-side', '--field-manager', 'deployer', '-f', '-'], manifest);
  assert.equal(first.code, 0, first.stderr);
  const before = JSON.parse((await k(['get', resource, '-o', 'json', '--show-managed-fields'])).stdout) as JsonObject;
  assert.deepEqual(portsAt(before), [{ containerPort: 8080, name: 'http', protocol: 'TCP' }]);

  const second = await k(['apply', '--server-side', '--field-manager', 'deployer', '-f', '-'], manifest);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /serverside-applied/);
  const afterApply = JSON.parse(
    (await k(['get', resource, '-o', 'json', '--show-managed-fields'])).stdout,
  ) as JsonObject;
  const meta = (o: JsonObject) => o.metadata as JsonObject;
  assert.equal(meta(afterApply).resourceVersion, meta(before).resourceVersion, 'the second apply is a no-op');
  assert.deepEqual(portsAt(afterApply), portsAt(before));
  const entries = meta(afterApply).managedFields as JsonObject[];
  const mine = entries.find((e) => e.manager === 'deployer');
  assert.equal(mine?.operation, 'Apply');
  return JSON.stringify(mine?.fieldsV1);
}

test('[1.33] a Pod whose container port omits protocol applies twice without change', async () => {
  const owned = await applyTwice('pod/web', pod, (o) => {
    const containers = (o.spec as JsonObject).containers as JsonObject[];
    return containers[0].ports;
  });
  // The key carries the defaulted protocol; the applier owns the fields it sent, not protocol.
  assert.ok(
    owned.includes(`"f:ports":{"${portKey.replaceAll('"', '\\"')}":{".":{},"f:containerPort":{},"f:name":{}}}`),
    owned,
  );
});

test('[1.33] a custom resource embedding a Container port without protocol applies twice without change', async () => {
  const created = await k(['apply', '--server-side', '-f', '-'], crd);
  assert.equal(created.code, 0, created.stderr);
  await eventually(async () => (await k(['get', 'sidecars'])).code === 0, { what: 'sidecars served' });
  const owned = await applyTwice('sidecar/proxy', sidecar, (o) => {
    const container = (o.spec as JsonObject).container as JsonObject;
    return container.ports;
  });
  assert.ok(
    owned.includes(`"f:ports":{"${portKey.replaceAll('"', '\\"')}":{".":{},"f:containerPort":{},"f:name":{}}}`),
    owned,
  );
});
