// The PeerPod CRD: generated from the same schema as the TypeScript type, accepting exactly what the
// upstream Go adaptor writes (and its `cleand` status typo), with our status and printer columns.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClient, installCrds, silentLogger } from '../../../src/runtime/index.ts';
import { PEERPOD_FINALIZER, PeerPods, peerPodCrd, peerPodSpecSchema } from '../../../src/peerpod/api/index.ts';
import type { PeerPod, PeerPodSpec } from '../../../src/peerpod/api/index.ts';
import { startTestCluster } from '../../helpers/control-plane.ts';
import type { TestCluster } from '../../helpers/control-plane.ts';

interface Version {
  schema: {
    openAPIV3Schema: { properties: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
  };
  additionalPrinterColumns: Array<{ name: string; jsonPath: string }>;
  subresources: Record<string, unknown>;
}

const version = (peerPodCrd().spec as { versions: Version[] }).versions[0];

describe('PeerPod CRD', () => {
  it('is generated from the schema the type comes from: upstream fields, nothing required', () => {
    const spec: PeerPodSpec = {}; // compiles: no required field
    assert.deepEqual(spec, {});
    const props = version.schema.openAPIV3Schema.properties;
    assert.deepEqual(Object.keys(props.spec.properties ?? {}), ['cloudProvider', 'instanceID']);
    assert.equal(props.spec.required, undefined);
    assert.deepEqual(props.spec, peerPodSpecSchema.json);
    assert.ok(props.status.properties?.cleand, 'upstream status typo kept');
    assert.ok(
      props.status.properties?.conditions && props.status.properties.phase && props.status.properties.lastError,
    );
    assert.deepEqual(version.subresources, { status: {} });
    assert.deepEqual(
      version.additionalPrinterColumns.map((c) => c.name),
      ['Provider', 'Instance', 'Pod', 'Phase', 'Age', 'Node', 'IP', 'Size'],
    );
  });

  describe('against the embedded control plane', () => {
    let cluster: TestCluster;
    let client: KubeClient;
    before(async () => {
      cluster = await startTestCluster();
      client = KubeClient.fromKubeconfigString(cluster.kubeconfig, { metricsRegistry: null, logger: silentLogger() });
      await installCrds(client, [peerPodCrd()], { fieldManager: 'peerpods' });
    });
    after(async () => {
      client.close();
      await cluster.stop();
    });

    it('accepts the object upstream OwnPeerPod POSTs (raw REST, plural peerPods path as Go writes it)', async () => {
      // What encoding/json makes of upstream's Go struct: empty status object, omitempty spec fields.
      const body = {
        apiVersion: 'confidentialcontainers.org/v1alpha1',
        kind: 'PeerPod',
        metadata: {
          name: 'web-resource-abcde',
          namespace: 'default',
          finalizers: [PEERPOD_FINALIZER],
          ownerReferences: [
            {
              apiVersion: 'v1',
              kind: 'Pod',
              name: 'web',
              uid: '0b7c2f4e-1111-4222-8333-444455556666',
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
          creationTimestamp: null,
        },
        spec: { instanceID: 'i-0123456789abcdef0', cloudProvider: 'aws' },
        status: {},
      };
      const res = await client.request(
        'POST',
        '/apis/confidentialcontainers.org/v1alpha1/namespaces/default/peerpods',
        body,
      );
      assert.equal(res.statusCode, 201);
      const pp = await client.get<PeerPod>(PeerPods, 'web-resource-abcde', 'default');
      assert.deepEqual(pp.spec, { instanceID: 'i-0123456789abcdef0', cloudProvider: 'aws' });
      // The status typo upstream declares is accepted through the status subresource.
      const st = await client.patch<PeerPod>(
        PeerPods,
        'web-resource-abcde',
        'default',
        { status: { cleand: true } },
        'merge',
        {
          subresource: 'status',
        },
      );
      assert.equal(st.status?.cleand, true);
      // An empty spec is accepted too (every field optional).
      await client.create(PeerPods, {
        apiVersion: 'confidentialcontainers.org/v1alpha1',
        kind: 'PeerPod',
        metadata: { name: 'empty', namespace: 'default' },
        spec: {},
      });
    });

    it('prints Provider, Instance, Pod (owner name), Phase and Age; Node, IP and Size with -o wide', async () => {
      const res = await client.request(
        'GET',
        '/apis/confidentialcontainers.org/v1alpha1/namespaces/default/peerpods/web-resource-abcde',
        undefined,
        { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
      );
      const table = res.body as {
        columnDefinitions: Array<{ name: string; priority: number }>;
        rows: Array<{ cells: unknown[] }>;
      };
      const names = table.columnDefinitions.map((c) => c.name);
      assert.deepEqual(names, ['Name', 'Provider', 'Instance', 'Pod', 'Phase', 'Age', 'Node', 'IP', 'Size']);
      // Node, IP and Size are for -o wide (priority 1), as kube's own wide columns.
      assert.deepEqual(
        table.columnDefinitions.map((c) => c.priority),
        [0, 0, 0, 0, 0, 0, 1, 1, 1],
      );
      assert.deepEqual(table.rows[0].cells.slice(0, 4), ['web-resource-abcde', 'aws', 'i-0123456789abcdef0', 'web']);
    });
  });
});
