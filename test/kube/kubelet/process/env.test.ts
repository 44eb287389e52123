// A process container's environment, as kubelet's makeEnvironmentVariables
// (pkg/kubelet/kubelet_pods.go): service variables (pkg/kubelet/envvars/envvars.go), envFrom,
// env with `$(VAR)` expansion (third_party/forked/golang/expansion/expand.go), the downward API
// (pkg/fieldpath/fieldpath.go, pkg/api/v1/resource/helpers.go) and the errors that hold a
// container in CreateContainerConfigError (messages of the kubelet's watch-based ConfigMap and
// Secret managers, pkg/kubelet/util/manager/watch_based_manager.go).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { ContainerConfigError } from '../../../../src/kube/kubelet/process/container-config.ts';
import { expand, mappingFuncFor } from '../../../../src/kube/kubelet/process/expansion.ts';
import { API_SERVER, containerOf, podOf, startConfigFixture, type ConfigFixture } from './config-fixture.ts';

const NS = 'envtest';
let fx: ConfigFixture;

before(async () => {
  fx = await startConfigFixture(NS);
  await fx.create('configmaps', NS, { metadata: { name: 'cfg' }, data: { LEVEL: 'debug', MODE: 'fast' } });
  await fx.create('secrets', NS, {
    metadata: { name: 'creds' },
    data: { PASSWORD: Buffer.from('s3cret').toString('base64') },
  });
});
after(() => fx.stop());

async function envOf(container: JsonObject, spec: JsonObject = {}, meta: JsonObject = {}) {
  const pod = podOf(NS, { containers: [{ name: 'c', image: 'x', ...container }], ...spec }, meta);
  return (await fx.source.prepare(pod, containerOf(pod), fx.podDir())).env;
}

async function configError(container: JsonObject): Promise<string> {
  try {
    await envOf(container);
  } catch (e) {
    assert.ok(e instanceof ContainerConfigError, String(e));
    assert.equal(e.reason, 'CreateContainerConfigError');
    return e.message;
  }
  assert.fail('prepare succeeded');
}

describe('$(VAR) expansion', () => {
  test('as the forked golang expansion package', () => {
    const m = mappingFuncFor({ A: 'x' }, { B: 'y' });
    assert.equal(expand('$(A)-$(B)-$(C)', m), 'x-y-$(C)');
    assert.equal(expand('$$(A) $$ $A $(A', m), '$(A) $ $A $(A');
    assert.equal(expand('end$', m), 'end$');
  });

  test('env values see earlier variables, envFrom and the service variables, never later ones', async () => {
    const env = await envOf({
      envFrom: [{ configMapRef: { name: 'cfg' } }],
      env: [
        { name: 'A', value: 'one' },
        { name: 'B', value: '$(A)/$(LEVEL)/$(C)/$(NOPE)/$$(A)' },
        { name: 'C', value: 'three' },
        { name: 'URL', value: 'https://$(KUBERNETES_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)' },
        { name: 'EMPTY', value: '' },
      ],
    });
    assert.equal(env.B, 'one/debug/$(C)/$(NOPE)/$(A)');
    assert.equal(env.URL, 'https://127.0.0.1:6443');
    assert.equal(env.EMPTY, '');
  });
});

describe('downward API in env', () => {
  test('fieldRef: metadata, node, service account and IPs', async () => {
    const field = (name: string, fieldPath: string) => ({ name, valueFrom: { fieldRef: { fieldPath } } });
    const env = await envOf(
      {
        env: [
          field('NAME', 'metadata.name'),
          field('NAMESPACE', 'metadata.namespace'),
          field('UID', 'metadata.uid'),
          field('TIER', "metadata.labels['tier']"),
          field('NOTE', "metadata.annotations['example.com/note']"),
          field('NODE', 'spec.nodeName'),
          field('SA', 'spec.serviceAccountName'),
          field('HOST_IP', 'status.hostIP'),
          field('HOST_IPS', 'status.hostIPs'),
          field('POD_IP', 'status.podIP'),
          field('POD_IPS', 'status.podIPs'),
        ],
      },
      {},
      { uid: 'uid-1', labels: { tier: 'web' }, annotations: { 'example.com/note': 'hi' } },
    );
    assert.deepEqual(
      [env.NAME, env.NAMESPACE, env.UID, env.TIER, env.NOTE, env.NODE, env.SA],
      ['web', NS, 'uid-1', 'web', 'hi', 'node-1', 'default'],
    );
    assert.deepEqual(
      [env.HOST_IP, env.HOST_IPS, env.POD_IP, env.POD_IPS],
      ['127.0.0.1', '127.0.0.1', '127.244.1.5', '127.244.1.5'],
    );
  });

  test('resourceFieldRef: divisor, rounding up, unset limits report the node allocatable', async () => {
    const res = (name: string, resource: string, divisor?: string, containerName?: string) => ({
      name,
      valueFrom: {
        resourceFieldRef: { resource, ...(divisor ? { divisor } : {}), ...(containerName ? { containerName } : {}) },
      },
    });
    const pod = podOf(NS, {
      containers: [
        {
          name: 'c',
          image: 'x',
          resources: { limits: { cpu: '250m' }, requests: { cpu: '100m', memory: '100Mi' } },
          env: [
            res('CPU_MILLI', 'limits.cpu', '1m'),
            res('CPU', 'limits.cpu'),
            res('REQ_CPU', 'requests.cpu', '1m'),
            res('REQ_MEM_MI', 'requests.memory', '1Mi'),
            res('REQ_MEM_GI', 'requests.memory', '1Gi'),
            res('MEM_GI', 'limits.memory', '1Gi'),
            res('EPH', 'limits.ephemeral-storage', '1Gi'),
            res('REQ_EPH', 'requests.ephemeral-storage'),
            res('SIDE_MEM', 'limits.memory', '1Mi', 'side'),
          ],
        },
        { name: 'side', image: 'x', resources: { limits: { memory: '64Mi' } } },
      ],
    });
    const env = (await fx.source.prepare(pod, containerOf(pod), fx.podDir())).env;
    assert.deepEqual(
      [env.CPU_MILLI, env.CPU, env.REQ_CPU, env.REQ_MEM_MI, env.REQ_MEM_GI, env.SIDE_MEM],
      ['250', '1', '100', '100', '1', '64'],
    );
    // node-1's allocatable (cpu 4, memory 16Gi, ephemeral-storage 100Gi); requests are not defaulted.
    assert.deepEqual([env.MEM_GI, env.EPH, env.REQ_EPH], ['16', '100', '0']);
    const cpu = await envOf({ env: [res('CPU', 'limits.cpu')] });
    assert.equal(cpu.CPU, '4');
  });
});

describe('envFrom and key references', () => {
  test('prefix, later sources and env win, secrets decoded', async () => {
    const env = await envOf({
      envFrom: [
        { configMapRef: { name: 'cfg' } },
        { prefix: 'CFG_', configMapRef: { name: 'cfg' } },
        { secretRef: { name: 'creds' } },
      ],
      env: [
        { name: 'MODE', value: 'slow' },
        { name: 'PW', valueFrom: { secretKeyRef: { name: 'creds', key: 'PASSWORD' } } },
        { name: 'LVL', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'LEVEL' } } },
      ],
    });
    assert.equal(env.LEVEL, 'debug');
    assert.equal(env.CFG_LEVEL, 'debug');
    assert.equal(env.CFG_MODE, 'fast');
    assert.equal(env.MODE, 'slow');
    assert.equal(env.PASSWORD, 's3cret');
    assert.equal(env.PW, 's3cret');
    assert.equal(env.LVL, 'debug');
  });

  test('keys that are not environment variable names are skipped', async () => {
    // The API server refuses such keys, so the object goes straight to storage, as an object
    // written by an older or other server could be. The rule is the relaxed one of 1.33
    // (RelaxedEnvironmentVariableValidation): printable ASCII except '='.
    fx.cp.internals.storage.create(`/core/configmaps/${NS}/odd`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'odd', namespace: NS, uid: 'odd-uid' },
      data: { 'a=b': '1', 'tab\tkey': '2', 'ok.key-1': '3' },
    });
    const env = await envOf({ envFrom: [{ prefix: 'X_', configMapRef: { name: 'odd' } }] });
    assert.equal(env['X_ok.key-1'], '3');
    assert.deepEqual(
      Object.keys(env).filter((k) => k.startsWith('X_')),
      ['X_ok.key-1'],
    );
  });

  test('optional references to missing objects and keys are left out', async () => {
    const env = await envOf({
      envFrom: [
        { configMapRef: { name: 'absent', optional: true } },
        { secretRef: { name: 'absent', optional: true } },
      ],
      env: [
        { name: 'A', valueFrom: { configMapKeyRef: { name: 'absent', key: 'k', optional: true } } },
        { name: 'B', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'missing', optional: true } } },
        { name: 'C', valueFrom: { secretKeyRef: { name: 'creds', key: 'missing', optional: true } } },
        { name: 'D', value: 'kept' },
      ],
    });
    assert.equal(env.D, 'kept');
    for (const k of ['A', 'B', 'C']) assert.equal(Object.hasOwn(env, k), false, k);
  });

  test('missing objects and keys fail with the kubelet messages', async () => {
    const ref = (kind: string, name: string, key: string) => ({
      env: [{ name: 'V', valueFrom: { [kind]: { name, key } } }],
    });
    assert.equal(await configError(ref('configMapKeyRef', 'nope', 'k')), 'configmap "nope" not found');
    assert.equal(await configError(ref('secretKeyRef', 'nope', 'k')), 'secret "nope" not found');
    assert.equal(await configError(ref('configMapKeyRef', 'cfg', 'k')), `couldn't find key k in ConfigMap ${NS}/cfg`);
    assert.equal(await configError(ref('secretKeyRef', 'creds', 'k')), `couldn't find key k in Secret ${NS}/creds`);
    assert.equal(await configError({ envFrom: [{ configMapRef: { name: 'nope' } }] }), 'configmap "nope" not found');
    assert.equal(await configError({ envFrom: [{ secretRef: { name: 'nope' } }] }), 'secret "nope" not found');
  });
});

describe('service variables', () => {
  let clusterIP = '';
  before(async () => {
    const svc = await fx.create('services', NS, {
      metadata: { name: 'my-svc' },
      spec: {
        ports: [
          { name: 'http', port: 80, targetPort: 8080 },
          { name: 'metrics', port: 9090, protocol: 'UDP' },
        ],
      },
    });
    clusterIP = String((svc.spec as JsonObject).clusterIP);
    await fx.create('services', NS, {
      metadata: { name: 'headless' },
      spec: { clusterIP: 'None', ports: [{ port: 80 }] },
    });
    await fx.create('services', 'default', { metadata: { name: 'elsewhere' }, spec: { ports: [{ port: 80 }] } });
  });

  test('every Service of the namespace, Docker-link style', async () => {
    const env = await envOf({});
    assert.ok(clusterIP && clusterIP !== 'None', clusterIP);
    const own = Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('MY_SVC_')));
    assert.deepEqual(own, {
      MY_SVC_SERVICE_HOST: clusterIP,
      MY_SVC_SERVICE_PORT: '80',
      MY_SVC_SERVICE_PORT_HTTP: '80',
      MY_SVC_SERVICE_PORT_METRICS: '9090',
      MY_SVC_PORT: `tcp://${clusterIP}:80`,
      MY_SVC_PORT_80_TCP: `tcp://${clusterIP}:80`,
      MY_SVC_PORT_80_TCP_PROTO: 'tcp',
      MY_SVC_PORT_80_TCP_PORT: '80',
      MY_SVC_PORT_80_TCP_ADDR: clusterIP,
      MY_SVC_PORT_9090_UDP: `udp://${clusterIP}:9090`,
      MY_SVC_PORT_9090_UDP_PROTO: 'udp',
      MY_SVC_PORT_9090_UDP_PORT: '9090',
      MY_SVC_PORT_9090_UDP_ADDR: clusterIP,
    });
    assert.equal(
      Object.keys(env).some((k) => k.startsWith('HEADLESS_') || k.startsWith('ELSEWHERE_')),
      false,
    );
  });

  test('the master service always, pointing at the real API server', async () => {
    const master = {
      KUBERNETES_SERVICE_HOST: API_SERVER.host,
      KUBERNETES_SERVICE_PORT: String(API_SERVER.port),
      KUBERNETES_SERVICE_PORT_HTTPS: String(API_SERVER.port),
      KUBERNETES_PORT: `tcp://${API_SERVER.host}:${API_SERVER.port}`,
      [`KUBERNETES_PORT_${API_SERVER.port}_TCP`]: `tcp://${API_SERVER.host}:${API_SERVER.port}`,
      [`KUBERNETES_PORT_${API_SERVER.port}_TCP_PROTO`]: 'tcp',
      [`KUBERNETES_PORT_${API_SERVER.port}_TCP_PORT`]: String(API_SERVER.port),
      [`KUBERNETES_PORT_${API_SERVER.port}_TCP_ADDR`]: API_SERVER.host,
    };
    const linked = await envOf({});
    const unlinked = await envOf({}, { enableServiceLinks: false });
    assert.deepEqual(unlinked, master);
    for (const [k, v] of Object.entries(master)) assert.equal(linked[k], v, k);
    // env overrides a service variable of the same name.
    const overridden = await envOf({ env: [{ name: 'MY_SVC_SERVICE_PORT', value: '1' }] });
    assert.equal(overridden.MY_SVC_SERVICE_PORT, '1');
  });
});
