// The rules behind several providers in one cluster, without a cluster: which PeerPodConfig wins a
// RuntimeClass or resource, what its node claim and adaptor DaemonSet are called, which routes the
// namespace's webhook gets, and what the webhook does with them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  claimAnnotation,
  conflictOf,
  grantedConfigs,
  webhookDeployer,
  webhookRoutes,
} from '../../../src/peerpod/controllers/peerpodconfig/binding.ts';
import {
  ADAPTOR_DAEMONSET,
  adaptorDaemonSet,
  adaptorDaemonSetName,
  webhookDeployment,
} from '../../../src/peerpod/controllers/peerpodconfig/objects.ts';
import { OWNER_ANNOTATION } from '../../../src/peerpod/controllers/peerpodconfig/nodes.ts';
import { resolveOptions } from '../../../src/peerpod/controllers/peerpodconfig/options.ts';
import type { PeerPodConfig } from '../../../src/peerpod/api/index.ts';
import { mutatePod, resourceFor } from '../../../src/peerpod/webhook/mutate.ts';
import type { Pod } from '../../../src/peerpod/webhook/mutate.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- deep reads of built object shapes in assertions */

const d = { runtimeClassName: 'kata-remote', extendedResource: 'kata.peerpods.io/vm' };
let second = 0;

function cfg(name: string, spec: Partial<PeerPodConfig['spec']> = {}, namespace = 'peerpods-system'): PeerPodConfig {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, second++)).toISOString().replace('.000', '');
  return { metadata: { name, namespace, creationTimestamp: at }, spec: { limitPerNode: 1, ...spec } } as PeerPodConfig;
}

test('the oldest config wins a RuntimeClass or a resource; a refused one blocks nobody', () => {
  const qemu = cfg('qemu');
  const sim = cfg('sim', { runtimeClassName: 'kata-remote-sim', extendedResource: 'simulated.kata.peerpods.io/vm' });
  const sameClass = cfg('same-class', { runtimeClassName: 'kata-remote-sim', extendedResource: 'x.io/vm' });
  // Its resource is only claimed by the refused config above: granted.
  const third = cfg('third', { runtimeClassName: 'kata-remote-x', extendedResource: 'x.io/vm' });
  const defaultResource = cfg('default-resource', { runtimeClassName: 'kata-remote-y' });
  const all = [defaultResource, third, sameClass, sim, qemu];
  assert.equal(conflictOf(qemu, all, d), undefined);
  assert.equal(conflictOf(sim, all, d), undefined);
  assert.deepEqual(conflictOf(sameClass, all, d), {
    reason: 'RuntimeClassConflict',
    message: 'RuntimeClass kata-remote-sim is already bound by PeerPodConfig peerpods-system/sim',
  });
  assert.equal(conflictOf(third, all, d), undefined);
  assert.deepEqual(conflictOf(defaultResource, all, d), {
    reason: 'ExtendedResourceConflict',
    message: 'extended resource kata.peerpods.io/vm is already advertised by PeerPodConfig peerpods-system/qemu',
  });
  assert.deepEqual(
    grantedConfigs(all, d).map((c) => c.metadata.name),
    ['qemu', 'sim', 'third'],
  );
  // Alone, today's single config (no binding fields) is never in conflict.
  assert.equal(conflictOf(qemu, [qemu], d), undefined);
});

test("one config per namespace deploys the webhook, with every other granted config's route", () => {
  const sim = cfg('sim', { runtimeClassName: 'kata-remote-sim', extendedResource: 'simulated.kata.peerpods.io/vm' });
  const qemu = cfg('qemu');
  const elsewhere = cfg('elsewhere', { runtimeClassName: 'kata-remote-z', extendedResource: 'z.io/vm' }, 'other');
  const all = [sim, qemu, elsewhere];
  // The oldest: a provider added later never moves the webhook objects away from their owner.
  assert.equal(webhookDeployer('peerpods-system', all, d)?.metadata.name, 'sim');
  assert.equal(webhookDeployer('other', all, d)?.metadata.name, 'elsewhere');
  assert.deepEqual(webhookRoutes('peerpods-system', all, d), [
    { runtimeClassName: 'kata-remote-sim', extendedResource: 'simulated.kata.peerpods.io/vm' },
  ]);
  // A default RuntimeClass bound to another resource is a route too.
  const moved = cfg('moved', { extendedResource: 'qemu.kata.peerpods.io/vm' });
  assert.deepEqual(webhookRoutes('peerpods-system', [moved], d), [
    { runtimeClassName: 'kata-remote', extendedResource: 'qemu.kata.peerpods.io/vm' },
  ]);
  assert.deepEqual(webhookRoutes('peerpods-system', [qemu], d), []);
});

test('node claims: upstream-era annotation for the default resource, one valid key per other resource', () => {
  assert.equal(claimAnnotation('kata.peerpods.io/vm', d), OWNER_ANNOTATION);
  const sim = claimAnnotation('simulated.kata.peerpods.io/vm', d);
  assert.equal(sim, 'peerpodconfig.confidentialcontainers.org/owner.simulated.kata.peerpods.io_vm');
  const long = claimAnnotation(`${'a'.repeat(60)}.example.com/vm`, d);
  // An annotation key's name part: at most 63 characters (apimachinery validation.IsQualifiedName).
  const name = long.split('/')[1];
  assert.ok(name.length <= 63 && /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(name), long);
});

test('each provider gets its own adaptor DaemonSet; a single config keeps upstream name and args', () => {
  const opts = resolveOptions({ adaptorImage: 'ghcr.io/peerpods/peerpods:dev' });
  const single = adaptorDaemonSet(cfg('qemu'), opts) as any;
  assert.equal(single.metadata.name, ADAPTOR_DAEMONSET);
  assert.deepEqual(single.spec.template.spec.containers[0].args, [
    'run',
    'adaptor',
    '--health-probe-bind-address=:8082',
  ]);
  const sim = cfg('sim', {
    runtimeClassName: 'kata-remote-sim',
    extendedResource: 'simulated.kata.peerpods.io/vm',
    cloudProvider: 'simulated',
    configMapName: 'sim-cm',
    cloudSecretName: 'sim-secret',
  });
  assert.equal(adaptorDaemonSetName(sim, opts), `${ADAPTOR_DAEMONSET}-kata-remote-sim`);
  const ds = adaptorDaemonSet(sim, opts) as any;
  assert.equal(ds.metadata.name, `${ADAPTOR_DAEMONSET}-kata-remote-sim`);
  assert.deepEqual(ds.spec.selector.matchLabels, { name: `${ADAPTOR_DAEMONSET}-kata-remote-sim` });
  assert.deepEqual(ds.spec.template.spec.containers[0].args.slice(3), [
    '--runtime-class=kata-remote-sim',
    '--provider=simulated',
    '--config-map=sim-cm',
    '--secret=sim-secret',
  ]);
  // Upstream's image is configured by env alone: it gets the provider.
  const upstream = adaptorDaemonSet(sim, resolveOptions({ adaptorImage: 'quay.io/x/cloud-api-adaptor' })) as any;
  assert.deepEqual(upstream.spec.template.spec.containers[0].env, [{ name: 'CLOUD_PROVIDER', value: 'simulated' }]);
});

test("a further provider's adaptors get a health port of their own: both DaemonSets share each node's network", () => {
  const opts = resolveOptions({ adaptorImage: 'ghcr.io/peerpods/peerpods:dev' });
  const port = (c: ReturnType<typeof cfg>) => {
    const container = (adaptorDaemonSet(c, opts) as any).spec.template.spec.containers[0];
    const flag = Number((container.args[2] as string).replace('--health-probe-bind-address=:', ''));
    assert.equal(container.ports[0].containerPort, flag);
    assert.equal(container.readinessProbe.httpGet.port, flag);
    assert.equal(container.livenessProbe.httpGet.port, flag);
    return flag;
  };
  const sim = port(cfg('sim', { runtimeClassName: 'kata-remote-sim', cloudProvider: 'simulated' }));
  assert.equal(port(cfg('qemu')), 8082);
  assert.notEqual(sim, 8082);
  assert.ok(sim >= 18100 && sim < 19000, String(sim));
  // Stable: the same RuntimeClass always gets the same port (no rollout on a controller restart).
  assert.equal(port(cfg('again', { runtimeClassName: 'kata-remote-sim', cloudProvider: 'simulated' })), sim);
});

test('the webhook Deployment carries the routes as --runtime-class-resource', () => {
  const opts = resolveOptions();
  const w = opts.webhook as Exclude<typeof opts.webhook, false>;
  const args = (routes: Parameters<typeof webhookDeployment>[3]) =>
    (webhookDeployment(cfg('qemu'), opts, w, routes) as any).spec.template.spec.containers[0].args as string[];
  assert.deepEqual(args([]), args(undefined));
  assert.deepEqual(
    args([{ runtimeClassName: 'kata-remote-sim', extendedResource: 'simulated.kata.peerpods.io/vm' }]).slice(-1),
    ['--runtime-class-resource=kata-remote-sim=simulated.kata.peerpods.io/vm'],
  );
});

test("the webhook gives a pod its RuntimeClass's resource; other classes stay untouched", () => {
  const opts = { runtimeClassResources: { 'kata-remote-sim': 'simulated.kata.peerpods.io/vm' } };
  assert.equal(resourceFor('kata-remote', opts), 'kata.peerpods.io/vm');
  assert.equal(resourceFor('kata-remote-sim', opts), 'simulated.kata.peerpods.io/vm');
  assert.equal(resourceFor('runc', opts), undefined);
  const pod = (runtimeClassName: string): Pod => ({
    metadata: { name: 'p' },
    spec: { runtimeClassName, containers: [{ name: 'a', resources: { requests: { cpu: '2' } } }] },
  });
  const sim = pod('kata-remote-sim');
  assert.equal(mutatePod(sim, opts).matched, true);
  assert.deepEqual(sim.spec?.containers?.[0].resources, {
    requests: { 'simulated.kata.peerpods.io/vm': '1' },
    limits: { 'simulated.kata.peerpods.io/vm': '1' },
  });
  const other = pod('runc');
  assert.equal(mutatePod(other, opts).matched, false);
  assert.deepEqual(other.spec?.containers?.[0].resources, { requests: { cpu: '2' } });
});
