// The service-account tokens the kubelet projects into a pod (pkg/kubelet/token/token_manager.go):
// a JWT of the pod's ServiceAccount bound to the pod, with the projection's audience and lifetime,
// replaced once 80 % of its life has passed; and a process pod using it in-cluster authenticates as
// its ServiceAccount.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { ApiContainerConfigSource } from '../../../../src/kube/kubelet/process/config-source.ts';
import { internalContext } from '../../../../src/kube/registry/context.ts';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { containerOf, jwtClaims, podOf } from './config-fixture.ts';
import { createProcessPod, startProcessCluster, status } from './helpers.ts';

describe('projected serviceAccountToken', () => {
  const NS = 'rotation';
  let cp: TestCluster;
  let source: ApiContainerConfigSource;
  let stateDir: string;
  let offsetMs = 0;

  before(async () => {
    cp = await startTestCluster({ nodes: 1, clock: { now: () => Date.now() + offsetMs } });
    stateDir = mkdtempSync(join(tmpdir(), 'peerpods-tokens-'));
    // Looked at every 20 ms instead of the kubelet's minute, so moving the clock shows quickly.
    source = new ApiContainerConfigSource(cp.internals, {
      apiServer: () => ({ host: '127.0.0.1', port: 6443 }),
      podTokens: cp.internals.podTokens,
      caPem: () => cp.caPem,
      stateDir,
      tokenResyncMs: 20,
    });
    const nsDef = cp.internals.catalog.lookup('', 'v1', 'namespaces')!;
    await cp.internals.store.create(nsDef, undefined, { metadata: { name: NS } }, internalContext('test'));
    const saDef = cp.internals.catalog.lookup('', 'v1', 'serviceaccounts')!;
    await waitFor(() => !!cp.internals.store.getStored(saDef, NS, 'default'), 'ServiceAccount default');
  });

  after(async () => {
    source?.stop();
    await cp?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  test('carries the audience and lifetime asked for and is replaced at 80 % of its life', async () => {
    const pod = podOf(NS, {
      volumes: [
        {
          name: 'vault-token',
          projected: { sources: [{ serviceAccountToken: { audience: 'vault', expirationSeconds: 600, path: 't' } }] },
        },
      ],
      containers: [{ name: 'c', image: 'x', volumeMounts: [{ name: 'vault-token', mountPath: '/vault' }] }],
    });
    const config = await source.prepare(pod, containerOf(pod), join(stateDir, 'pod-1'));
    const dir = config.mounts.find((m) => m.mountPath === '/vault')!.hostPath;
    const read = () => readFileSync(join(dir, 't'), 'utf8');
    const first = read();
    const claims = jwtClaims(first);
    assert.deepEqual(claims.aud, ['vault']);
    assert.equal(claims.exp, Number(claims.iat) + 600);
    assert.equal(claims.sub, `system:serviceaccount:${NS}:default`);
    const bound = claims['kubernetes.io'] as JsonObject;
    assert.deepEqual(bound.pod, { name: 'web', uid: (pod.metadata as JsonObject).uid });
    assert.equal((bound.node as JsonObject).name, 'node-1');

    offsetMs = 470_000; // 78 % of 600 s: still the same token
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(read(), first);
    offsetMs = 481_000; // past 80 %
    await waitFor(() => read() !== first, 'the token to be replaced');
    const next = jwtClaims(read());
    assert.ok(Number(next.iat) >= Number(claims.iat) + 481);
    assert.notEqual(next.jti, claims.jti);

    source.release(String((pod.metadata as JsonObject).uid));
    const last = read();
    offsetMs = 2_000_000;
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(read(), last, 'a released pod is no longer refreshed');
  });
});

describe('a process pod', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startProcessCluster();
  });
  after(async () => {
    await cp?.stop();
  });

  // client-go's in-cluster config: the service host and port, the mounted CA and token.
  const WHOAMI = `
const fs = require('node:fs');
const dir = '/var/run/secrets/kubernetes.io/serviceaccount/';
const req = require('node:https').request({
  host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT,
  path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', method: 'POST', ca: fs.readFileSync(dir + 'ca.crt'),
  headers: { Authorization: 'Bearer ' + fs.readFileSync(dir + 'token', 'utf8'), 'Content-Type': 'application/json' },
}, (res) => { let b = ''; res.on('data', (c) => (b += c)); res.on('end', () => console.log(res.statusCode, b)); });
req.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }));
`;

  test('authenticates in-cluster as its ServiceAccount with its mounted token', async () => {
    await createProcessPod(cp, 'whoami', { command: ['node', '-e', WHOAMI] }, { restartPolicy: 'Never' });
    await eventually(() => ['Succeeded', 'Failed'].includes(String(status(cp, 'whoami').phase)), {
      what: 'whoami to finish',
      timeoutMs: 60_000,
    });
    const logs = await kubectl(cp.kubeconfigPath, ['logs', 'whoami']);
    const m = /^(\d+) (.*)$/m.exec(logs.stdout);
    assert.ok(m, logs.stdout + logs.stderr);
    assert.equal(m[1], '201', m[2]);
    const userInfo = ((JSON.parse(m[2]) as JsonObject).status as JsonObject).userInfo as JsonObject;
    assert.equal(userInfo.username, 'system:serviceaccount:default:default');
    assert.deepEqual((userInfo.extra as Record<string, string[]>)['authentication.kubernetes.io/pod-name'], ['whoami']);
  });
});
