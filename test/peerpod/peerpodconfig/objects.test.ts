// The adaptor DaemonSet for this project's own image: `peerpods run adaptor`, told its node and
// namespace through the downward API and probed on its health port; upstream's image keeps its
// entrypoint script (deploy.test.ts checks that shape on a running controller).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  adaptorDaemonSet,
  isPeerpodsImage,
  webhookDeployment,
} from '../../../src/peerpod/controllers/peerpodconfig/objects.ts';
import { resolveOptions } from '../../../src/peerpod/controllers/peerpodconfig/options.ts';
import type { PeerPodConfig } from '../../../src/peerpod/api/index.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- deep reads of built-in object shapes in assertions */

const cfg = { metadata: { name: 'c', namespace: 'peerpods-system', uid: 'u' }, spec: {} } as unknown as PeerPodConfig;

test('isPeerpodsImage tells our image from others by its repository', () => {
  for (const image of [
    'ghcr.io/peerpods/peerpods:latest',
    'peerpods',
    'localhost:5000/peerpods@sha256:ab',
    'x/peerpods:1.2',
  ])
    assert.equal(isPeerpodsImage(image), true, image);
  for (const image of [
    'quay.io/confidential-containers/cloud-api-adaptor',
    'ghcr.io/peerpods/webhook:1',
    'peerpods-x:1',
  ])
    assert.equal(isPeerpodsImage(image), false, image);
});

test('our image runs `peerpods run adaptor` with NODE_NAME from the node and real probes', () => {
  const ds = adaptorDaemonSet(cfg, resolveOptions({ adaptorImage: 'ghcr.io/peerpods/peerpods:dev' })) as any;
  const c = ds.spec.template.spec.containers[0];
  assert.equal(c.command, undefined);
  assert.deepEqual(c.args, ['run', 'adaptor', '--health-probe-bind-address=:8082']);
  assert.deepEqual(c.env, [
    { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
    { name: 'PEERPODS_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
  ]);
  assert.deepEqual(c.envFrom[0], { secretRef: { name: 'peer-pods-secret', optional: true } });
  assert.deepEqual(c.readinessProbe, {
    httpGet: { path: '/readyz', port: 8082, scheme: 'HTTP' },
    periodSeconds: 2,
  });
  assert.equal(ds.spec.template.spec.hostNetwork, true);
});

test("upstream's image keeps its entrypoint script and a required Secret", () => {
  const ds = adaptorDaemonSet(
    cfg,
    resolveOptions({ adaptorImage: 'quay.io/confidential-containers/cloud-api-adaptor' }),
  ) as any;
  const c = ds.spec.template.spec.containers[0];
  assert.deepEqual(c.command, ['/usr/local/bin/entrypoint.sh']);
  assert.equal(c.args, undefined);
  assert.equal(c.readinessProbe, undefined);
  assert.deepEqual(c.envFrom[0], { secretRef: { name: 'peer-pods-secret' } });
});

test('the adaptors and the webhook run as their own ServiceAccounts; the webhook holds no token', () => {
  const opts = resolveOptions({});
  const ds = adaptorDaemonSet(cfg, opts) as any;
  assert.equal(ds.spec.template.spec.serviceAccountName, 'peerpod-adaptor');
  assert.equal(
    (adaptorDaemonSet(cfg, resolveOptions({ adaptorServiceAccountName: 'caa' })) as any).spec.template.spec
      .serviceAccountName,
    'caa',
  );
  const w = opts.webhook;
  assert.ok(w);
  const pod = (webhookDeployment(cfg, opts, w) as any).spec.template.spec;
  assert.equal(pod.serviceAccountName, 'peer-pods-webhook');
  // The API server calls the webhook; the webhook never calls the API server.
  assert.equal(pod.automountServiceAccountToken, false);
});
