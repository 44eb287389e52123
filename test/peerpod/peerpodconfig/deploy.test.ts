// The objects a PeerPodConfig deploys: upstream's shapes, owned by the PeerPodConfig (the
// cluster-scoped MutatingWebhookConfiguration by label), never rewritten when unchanged, restored
// after drift, removed on delete; and the webhook certificate rotated before it expires.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  DaemonSets,
  Deployments,
  MutatingWebhookConfigurations,
  Secrets,
  Services,
} from '../../../src/runtime/index.ts';
import type { KubeObject, ResourceType } from '../../../src/runtime/index.ts';
import { PeerPodConfigs } from '../../../src/peerpod/api/index.ts';
import type { PeerPodConfig } from '../../../src/peerpod/api/index.ts';
import { NS, createConfig, eventually, startController, startEnv } from './helpers.ts';
import type { Env, Running } from './helpers.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- deep reads of built-in object shapes in assertions */
type Obj = KubeObject & Record<string, any>;

const MWC = `peer-pods-webhook-${NS}`;
const OBJECTS: Array<[ResourceType, string, string | undefined]> = [
  [DaemonSets, 'peerpodconfig-ctrl-caa-daemon', NS],
  [Deployments, 'peer-pods-webhook', NS],
  [Services, 'peer-pods-webhook-svc', NS],
  [Secrets, 'peer-pods-webhook-svc-secret', NS],
  [MutatingWebhookConfigurations, MWC, undefined],
];

async function ready(env: Env, name: string, generation?: number): Promise<PeerPodConfig> {
  return eventually(
    async () => {
      const c = await env.client.get<PeerPodConfig>(PeerPodConfigs, name, NS);
      const r = c.status?.conditions?.find((x) => x.type === 'Ready');
      return r?.status === 'True' && r.observedGeneration === (generation ?? c.metadata.generation) ? c : undefined;
    },
    { what: `${name} Ready`, timeoutMs: 20_000 },
  );
}

async function versions(env: Env): Promise<string[]> {
  return Promise.all(
    OBJECTS.map(async ([t, n, ns]) => (await env.client.get(t, n, ns)).metadata.resourceVersion as string),
  );
}

describe('PeerPodConfig deployed objects', () => {
  let env: Env;
  let ctrl: Running;
  let cfg: PeerPodConfig;
  before(async () => {
    env = await startEnv(1);
    ctrl = await startController(env, { adaptorImage: 'example.com/caa:1' });
    await createConfig(env, 'main', { limit: 2, nodeSelector: { 'node.kubernetes.io/worker': '' } });
    cfg = await ready(env, 'main');
  });
  after(async () => {
    await ctrl.stop();
    await env.stop();
  });

  it('deploys the adaptor DaemonSet in upstream shape', async () => {
    const ds = await env.client.get<Obj>(DaemonSets, 'peerpodconfig-ctrl-caa-daemon', NS);
    assert.equal(ds.metadata.ownerReferences?.[0].uid, cfg.metadata.uid);
    assert.equal(ds.metadata.ownerReferences?.[0].controller, true);
    const pod = ds.spec.template.spec;
    assert.equal(pod.hostNetwork, true);
    assert.deepEqual(pod.nodeSelector, { 'node.kubernetes.io/worker': '' });
    const c = pod.containers[0];
    assert.equal(c.name, 'caa-pod');
    assert.equal(c.image, 'example.com/caa:1');
    assert.equal(c.securityContext.privileged, true);
    assert.deepEqual(c.envFrom, [
      { secretRef: { name: 'peer-pods-secret' } },
      { configMapRef: { name: 'peer-pods-cm' } },
    ]);
    assert.deepEqual(
      pod.volumes.map((v: Obj) => v.name),
      ['auth-json-volume', 'ssh', 'pods-dir', 'netns'],
    );
    assert.equal(pod.volumes[0].secret.defaultMode, 0o600);
    assert.equal(c.volumeMounts[3].mountPropagation, 'HostToContainer');
  });

  it('deploys the webhook: Deployment x2, Service 443->9443, TLS Secret, MutatingWebhookConfiguration', async () => {
    const dep = await env.client.get<Obj>(Deployments, 'peer-pods-webhook', NS);
    assert.equal(dep.spec.replicas, 2);
    assert.deepEqual(dep.spec.template.spec.containers[0].env, [
      { name: 'TARGET_RUNTIMECLASS', value: 'kata-remote' },
      { name: 'POD_VM_EXTENDED_RESOURCE', value: 'kata.peerpods.io/vm' },
    ]);
    const svc = await env.client.get<Obj>(Services, 'peer-pods-webhook-svc', NS);
    assert.equal(svc.spec.ports[0].port, 443);
    assert.equal(svc.spec.ports[0].targetPort, 9443);
    const secret = await env.client.get<Obj>(Secrets, 'peer-pods-webhook-svc-secret', NS);
    assert.equal(secret.type, 'kubernetes.io/tls');
    for (const [, , ns] of OBJECTS.slice(0, 4)) assert.equal(ns, NS);

    const mwc = await env.client.get<Obj>(MutatingWebhookConfigurations, MWC);
    assert.equal(mwc.metadata.ownerReferences, undefined);
    assert.equal(mwc.metadata.labels?.['peerpodconfig.confidentialcontainers.org/name'], 'main');
    const hook = mwc.webhooks[0];
    assert.deepEqual(hook.rules[0].operations, ['CREATE']);
    assert.deepEqual(hook.rules[0].resources, ['pods']);
    assert.equal(hook.failurePolicy, 'Fail');
    assert.equal(hook.reinvocationPolicy, 'IfNeeded');
    assert.equal(hook.sideEffects, 'None');
    assert.deepEqual(hook.clientConfig.service, {
      name: 'peer-pods-webhook-svc',
      namespace: NS,
      path: '/mutate-v1-pod',
      port: 443,
    });
    assert.equal(hook.clientConfig.caBundle, secret.data['ca.crt']);
    const expr = hook.namespaceSelector.matchExpressions[0];
    assert.equal(expr.key, 'kubernetes.io/metadata.name');
    assert.equal(expr.operator, 'NotIn');
    assert.ok(expr.values.includes(NS) && expr.values.includes('kube-system'));

    const ca = new X509Certificate(Buffer.from(secret.data['ca.crt'], 'base64'));
    const serving = new X509Certificate(Buffer.from(secret.data['tls.crt'], 'base64'));
    assert.ok(serving.checkIssued(ca));
    assert.match(serving.subjectAltName ?? '', new RegExp(`DNS:peer-pods-webhook-svc\\.${NS}\\.svc`));
  });

  it('does not rewrite unchanged objects on another reconcile', async () => {
    const before = await versions(env);
    await env.client.patch(PeerPodConfigs, 'main', NS, { spec: { limit: 3 } }, 'merge');
    const next = await env.client.get<PeerPodConfig>(PeerPodConfigs, 'main', NS);
    await ready(env, 'main', next.metadata.generation);
    assert.deepEqual(await versions(env), before);
  });

  it('restores drift in an owned object', async () => {
    await env.client.patch(Deployments, 'peer-pods-webhook', NS, { spec: { replicas: 1 } }, 'merge');
    await eventually(
      async () => (await env.client.get<Obj>(Deployments, 'peer-pods-webhook', NS)).spec.replicas === 2,
      {
        what: 'replicas restored',
      },
    );
  });

  it('deletes the MutatingWebhookConfiguration on delete (it has no owner reference)', async () => {
    await env.client.delete(PeerPodConfigs, 'main', NS);
    await eventually(
      async () => {
        try {
          await env.client.get(MutatingWebhookConfigurations, MWC);
          return false;
        } catch {
          return true;
        }
      },
      { what: 'MutatingWebhookConfiguration deleted' },
    );
  });
});

describe('PeerPodConfig webhook certificate rotation', () => {
  let env: Env;
  let ctrl: Running;
  before(async () => {
    env = await startEnv(0);
    // Renewal at half of a 3 s validity: the serving certificate is re-issued every ~1.5 s.
    ctrl = await startController(env, { deployAdaptor: false, webhook: { certValidityMs: 3000, renewFraction: 0.5 } });
  });
  after(async () => {
    await ctrl.stop();
    await env.stop();
  });

  it('re-issues the serving certificate before expiry with the same CA (caBundle unchanged)', async () => {
    await createConfig(env, 'rot', { limit: 1 });
    const first = await eventually(async () => {
      try {
        return await env.client.get<Obj>(Secrets, 'peer-pods-webhook-svc-secret', NS);
      } catch {
        return undefined;
      }
    });
    const mwc = await eventually(async () => {
      try {
        return await env.client.get<Obj>(MutatingWebhookConfigurations, MWC);
      } catch {
        return undefined;
      }
    });
    const second = await eventually(
      async () => {
        const s = await env.client.get<Obj>(Secrets, 'peer-pods-webhook-svc-secret', NS);
        return s.data['tls.crt'] !== first.data['tls.crt'] ? s : undefined;
      },
      { what: 'serving certificate re-issued', timeoutMs: 10_000 },
    );
    assert.equal(second.data['ca.crt'], first.data['ca.crt']);
    const after = await env.client.get<Obj>(MutatingWebhookConfigurations, MWC);
    assert.equal(after.webhooks[0].clientConfig.caBundle, mwc.webhooks[0].clientConfig.caBundle);
    const serving = new X509Certificate(Buffer.from(second.data['tls.crt'], 'base64'));
    assert.ok(Date.parse(serving.validTo) > Date.now());
  });
});
