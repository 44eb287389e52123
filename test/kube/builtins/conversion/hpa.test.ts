// HorizontalPodAutoscalers served as autoscaling/v2 and autoscaling/v1 views of one stored object:
// `kubectl autoscale` (1.27 writes autoscaling/v1, 1.33 autoscaling/v2 in protobuf), `kubectl get
// hpa` with kube's columns and TARGETS (printHorizontalPodAutoscaler / formatHPAMetrics in
// pkg/printers/internalversion/printers.go), the v1 ⇄ v2 conversion of
// targetCPUUtilizationPercentage (pkg/apis/autoscaling/v1/conversion.go), the v2 defaults
// (pkg/apis/autoscaling/v2/defaults.go) and validation (pkg/apis/autoscaling/validation).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { hpaV1FromV2, hpaV2FromV1 } from '../../../../src/kube/builtins/index.ts';
import { call } from '../../server/http.ts';

const V1 = '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers';
const V2 = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';

describe('HorizontalPodAutoscaler', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 1 });
    const r = await kubectl(cp.kubeconfigPath, ['create', 'deployment', 'web', '--image=nginx'], { version: '1.33' });
    assert.equal(r.code, 0, r.stderr);
  });
  after(() => cp.stop());

  const getJson = async (path: string): Promise<JsonObject> => {
    const r = await call(cp, 'GET', path);
    assert.equal(r.status, 200, r.body);
    return JSON.parse(r.body) as JsonObject;
  };

  // kubectl 1.27's autoscale builds an autoscaling/v1 object; 1.33's an autoscaling/v2 one.
  for (const [version, writtenAs] of [
    ['1.27', 'autoscaling/v1'],
    ['1.33', 'autoscaling/v2'],
  ]) {
    test(`kubectl ${version} autoscale, then get hpa`, async () => {
      const name = `web-${version.replace('.', '')}`;
      const r = await kubectl(
        cp.kubeconfigPath,
        ['autoscale', 'deployment', 'web', `--name=${name}`, '--min=1', '--max=3', '--cpu-percent=80'],
        { version },
      );
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim(), `horizontalpodautoscaler.autoscaling/${name} autoscaled`);
      const v2 = await getJson(`${V2}/${name}`);
      const [entry] = (v2.metadata as { managedFields: JsonObject[] }).managedFields;
      assert.equal(entry.apiVersion, writtenAs);
      assert.deepEqual(v2.spec, {
        scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
        minReplicas: 1,
        maxReplicas: 3,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
        ],
      });

      for (const getter of ['1.27', '1.33']) {
        const g = await kubectl(cp.kubeconfigPath, ['get', 'hpa', name], { version: getter });
        assert.equal(g.code, 0, g.stderr);
        const [header, row] = g.stdout.trim().split('\n');
        assert.match(header, /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/);
        assert.match(row, new RegExp(`^${name}\\s+Deployment/web\\s+cpu: <unknown>/80%\\s+1\\s+3\\s+0\\s+\\d+s$`));
      }
    });
  }

  test('one object, two versions: v1 targetCPUUtilizationPercentage ⇄ v2 metrics', async () => {
    const v1Body = {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'conv' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 5 },
    };
    const created = await call(cp, 'POST', V1, { body: v1Body });
    assert.equal(created.status, 201, created.body);
    const asV1 = JSON.parse(created.body) as JsonObject;
    // v1 defaults minReplicas; converted to v2 with no metric, the CPU 80% default applies.
    assert.deepEqual(asV1.spec, {
      scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
      minReplicas: 1,
      maxReplicas: 5,
      targetCPUUtilizationPercentage: 80,
    });
    assert.deepEqual(asV1.status, { currentReplicas: 0, desiredReplicas: 0 });

    const asV2 = await getJson(`${V2}/conv`);
    assert.equal(asV2.apiVersion, 'autoscaling/v2');
    assert.deepEqual((asV2.spec as JsonObject).metrics, [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
    ]);
    assert.deepEqual(asV2.status, { desiredReplicas: 0, currentMetrics: null });

    // A v2 write with a metric v1 cannot express: v1 shows the CPU target and carries the rest in
    // the autoscaling.alpha.kubernetes.io/metrics annotation, which never reaches v2 readers.
    const memory = {
      type: 'Resource',
      resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } },
    };
    const patched = await call(cp, 'PATCH', `${V2}/conv`, {
      body: {
        spec: {
          metrics: [
            { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
            memory,
          ],
        },
      },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(patched.status, 200, patched.body);
    const v1 = await getJson(`${V1}/conv`);
    assert.equal((v1.spec as JsonObject).targetCPUUtilizationPercentage, 60);
    const annotations = (v1.metadata as { annotations: Record<string, string> }).annotations;
    assert.deepEqual(JSON.parse(annotations['autoscaling.alpha.kubernetes.io/metrics']), [memory]);

    // A v1 read-modify-write keeps the memory metric and changes the CPU target.
    (v1.spec as JsonObject).targetCPUUtilizationPercentage = 70;
    const put = await call(cp, 'PUT', `${V1}/conv`, { body: v1 });
    assert.equal(put.status, 200, put.body);
    const after = await getJson(`${V2}/conv`);
    assert.deepEqual((after.spec as JsonObject).metrics, [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
      memory,
    ]);
    assert.equal((after.metadata as JsonObject).annotations, undefined);

    const listed = await getJson(V1);
    assert.equal(listed.kind, 'HorizontalPodAutoscalerList');
    assert.equal(listed.apiVersion, 'autoscaling/v1');
  });

  test('validation as kube', async () => {
    const body = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'bad' },
      spec: { scaleTargetRef: { kind: 'Deployment' }, minReplicas: 4, maxReplicas: 2 },
    };
    const r = await call(cp, 'POST', V2, { body });
    assert.equal(r.status, 422, r.body);
    assert.equal(
      (JSON.parse(r.body) as { message: string }).message,
      'HorizontalPodAutoscaler.autoscaling "bad" is invalid: [spec.maxReplicas: Invalid value: 2: must be greater ' +
        'than or equal to `minReplicas`, spec.scaleTargetRef.name: Required value]',
    );
  });

  test('conversion functions round-trip status and conditions', () => {
    const v2: JsonObject = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'x', annotations: { keep: 'me' } },
      spec: {
        scaleTargetRef: { kind: 'Deployment', name: 'web' },
        minReplicas: 2,
        maxReplicas: 4,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
        ],
        behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
      },
      status: {
        currentReplicas: 2,
        desiredReplicas: 3,
        currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 75 } } }],
        conditions: [{ type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale' }],
      },
    };
    const v1 = hpaV1FromV2(structuredClone(v2));
    assert.deepEqual(v1.spec, {
      scaleTargetRef: { kind: 'Deployment', name: 'web' },
      minReplicas: 2,
      maxReplicas: 4,
      targetCPUUtilizationPercentage: 50,
    });
    assert.deepEqual(v1.status, { currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 75 });
    assert.deepEqual(hpaV2FromV1(v1), v2);
  });
});
