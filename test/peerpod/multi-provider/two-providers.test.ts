// Several providers in one cluster (CAA#2219, #2382): qemu (real VMs) behind RuntimeClass
// kata-remote, configured by today's single-provider PeerPodConfig, and the simulated provider behind
// kata-remote-sim, configured by a second PeerPodConfig naming its RuntimeClass, node resource and
// provider. Everything runs as it would in a cluster, wired from what the PeerPodConfig controller
// generated: the webhook serves the routes its Deployment's args carry (resolved to this process),
// the adaptors run with the args of their DaemonSets, the PeerPod controller and its orphan sweep
// read the one shared settings ConfigMap (`simulated.` keys for the second provider).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import {
  ConfigMaps,
  DaemonSets,
  Deployments,
  Events,
  Namespaces,
  Nodes,
  Pods,
  RuntimeClasses,
  Secrets,
} from '../../../src/runtime/index.ts';
import type { KubeObject, WebhookServer } from '../../../src/runtime/index.ts';
import { PEERPOD_FINALIZER, PeerPodConfigs, PeerPods } from '../../../src/peerpod/api/index.ts';
import type { PeerPod, PeerPodConfig } from '../../../src/peerpod/api/index.ts';
import { POD_UID_TAG } from '../../../src/peerpod/adaptor/index.ts';
import {
  ADAPTOR_DAEMONSET,
  OWNER_ANNOTATION,
  WEBHOOK_DEPLOYMENT,
  claimAnnotation,
} from '../../../src/peerpod/controllers/peerpodconfig/index.ts';
import { CLUSTER_UID_TAG, createProvider } from '../../../src/peerpod/providers/index.ts';
import type { CloudProvider, Instance } from '../../../src/peerpod/providers/index.ts';
import { podWebhookServer } from '../../../src/peerpod/webhook/index.ts';
import { kubectl } from '../../helpers/kubectl.ts';
import {
  NODES,
  SETTINGS_NS,
  cleanupQemu,
  eventually,
  getPod,
  isReady,
  peerPodsOf,
  startAdaptors,
  startEnv,
  tempDir,
} from '../adaptor/helpers.ts';
import type { Adaptors, Env } from '../adaptor/helpers.ts';
import { startController as startConfigController } from '../peerpodconfig/helpers.ts';
import type { Running as ConfigController } from '../peerpodconfig/helpers.ts';
import { startController as startPeerPodController } from '../controllers/helpers.ts';
import type { Running as PeerPodController } from '../controllers/helpers.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- deep reads of generated objects in assertions */
type Obj = KubeObject & Record<string, any>;

const QEMU_RC = 'kata-remote';
const QEMU_VM = 'kata.peerpods.io/vm';
const SIM_RC = 'kata-remote-sim';
const SIM_VM = 'simulated.kata.peerpods.io/vm';
const SIM_DAEMONSET = `${ADAPTOR_DAEMONSET}-${SIM_RC}`;
const ORPHAN_GRACE_MS = 300;
const defaults = { runtimeClassName: QEMU_RC, extendedResource: QEMU_VM };

function config(name: string, spec: PeerPodConfig['spec']): PeerPodConfig {
  return {
    apiVersion: 'confidentialcontainers.org/v1alpha1',
    kind: 'PeerPodConfig',
    metadata: { name, namespace: SETTINGS_NS },
    spec,
  };
}

/** The value of `--flag=value` in a container's args. */
function argValues(args: string[], flag: string): string[] {
  return args.filter((a) => a.startsWith(`${flag}=`)).map((a) => a.slice(flag.length + 1));
}

describe('several providers in one cluster (qemu + simulated)', { timeout: 240_000 }, () => {
  let env: Env;
  let qemuDir: string;
  let simDir: string;
  let certDir: string;
  let qemu: CloudProvider;
  let sim: CloudProvider;
  let configs: ConfigController;
  let peerPods: PeerPodController;
  let webhook: WebhookServer;
  const adaptors: Adaptors[] = [];
  const abort = new AbortController();
  let serving: Promise<void> | undefined;
  let clusterUid: string;

  const vmsOf = async (provider: CloudProvider, pod: KubeObject): Promise<Instance[]> =>
    provider.listInstances({ [POD_UID_TAG]: pod.metadata.uid as string });

  const readyConfig = (name: string) =>
    eventually(
      async () => {
        const c = await env.client.get<PeerPodConfig>(PeerPodConfigs, name, SETTINGS_NS);
        return c.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') ? c : undefined;
      },
      { timeoutMs: 20_000, what: `PeerPodConfig ${name} to be Ready` },
    );

  /** The adaptors a DaemonSet runs on every node, started with its container's args. */
  async function startAdaptorsOf(daemonSet: string): Promise<void> {
    const ds = await env.client.get<Obj>(DaemonSets, daemonSet, SETTINGS_NS);
    const args: string[] = ds.spec.template.spec.containers[0].args;
    const [runtimeClassName] = argValues(args, '--runtime-class');
    const [providerName] = argValues(args, '--provider');
    adaptors.push(
      await startAdaptors(env, {
        ...(runtimeClassName ? { runtimeClassName } : {}),
        ...(providerName ? { providerName } : {}),
      }),
    );
  }

  async function runningPod(runtimeClassName: string): Promise<Obj> {
    const created = await env.client.create<Obj>(Pods, {
      metadata: { name: `on-${runtimeClassName}`, namespace: 'default' },
      spec: {
        runtimeClassName,
        containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.9', resources: { requests: { cpu: '1' } } }],
      },
    });
    await eventually(async () => isReady(await getPod(env, created)), {
      timeoutMs: 60_000,
      what: `the ${runtimeClassName} pod to run`,
    });
    return created;
  }

  before(async () => {
    env = await startEnv();
    // What the kata shim's RuntimeClass handler does on a real node, for the second RuntimeClass.
    env.cluster.internals.registerNodeAgent(SIM_RC);
    await env.client.create(RuntimeClasses, { metadata: { name: SIM_RC }, handler: SIM_RC } as KubeObject);
    clusterUid = (await env.client.get(Namespaces, 'kube-system')).metadata.uid as string;
    qemuDir = await tempDir('pp-multi-qemu');
    simDir = await tempDir('pp-multi-sim');
    const log = pino({ level: 'silent' });
    qemu = await createProvider('qemu', { QEMU_STATE_DIR: qemuDir }, { logger: log });
    sim = await createProvider('simulated', { SIMULATED_STATE_DIR: simDir }, { logger: log });
    // One settings ConfigMap for both: the plain keys are qemu's (CLOUD_PROVIDER names it, as for a
    // single provider), `simulated.` keys apply to the simulated provider only.
    await env.client.create(ConfigMaps, {
      metadata: { name: 'peer-pods-cm', namespace: SETTINGS_NS },
      data: {
        CLOUD_PROVIDER: 'qemu',
        QEMU_STATE_DIR: qemuDir,
        QEMU_DEFAULT_VCPUS: '1',
        QEMU_DEFAULT_MEMORY: '128',
        'simulated.SIMULATED_STATE_DIR': simDir,
      },
    });

    // Our image, whose adaptor takes its binding as args (upstream's gets CLOUD_PROVIDER only).
    configs = await startConfigController(env, { capacity: false, adaptorImage: 'ghcr.io/peerpods/peerpods:dev' });
    // Today's single-provider config, unchanged, and one for the second provider.
    await env.client.create(PeerPodConfigs, config('qemu', { limitPerNode: 2 }));
    await env.client.create(
      PeerPodConfigs,
      config('simulated', {
        limitPerNode: 3,
        runtimeClassName: SIM_RC,
        extendedResource: SIM_VM,
        cloudProvider: 'simulated',
      }),
    );
    await readyConfig('qemu');
    await readyConfig('simulated');

    // The webhook as deployed: its certificate, and the routes its Deployment's args carry.
    const secret = await env.client.get<Obj>(Secrets, 'peer-pods-webhook-svc-secret', SETTINGS_NS);
    certDir = await mkdtemp(path.join(tmpdir(), 'pp-multi-webhook-'));
    await writeFile(path.join(certDir, 'tls.crt'), Buffer.from(secret.data['tls.crt'], 'base64'));
    await writeFile(path.join(certDir, 'tls.key'), Buffer.from(secret.data['tls.key'], 'base64'));
    const routes = await eventually(
      async () => {
        const d = await env.client.get<Obj>(Deployments, WEBHOOK_DEPLOYMENT, SETTINGS_NS);
        const r = argValues(d.spec.template.spec.containers[0].args, '--runtime-class-resource');
        return r.length > 0 ? r : undefined;
      },
      { what: 'the webhook Deployment to carry the second route' },
    );
    assert.deepEqual(routes, [`${SIM_RC}=${SIM_VM}`]);
    webhook = podWebhookServer({
      port: 0,
      host: '127.0.0.1',
      certDir,
      runtimeClassResources: Object.fromEntries(routes.map((r) => [r.split('=')[0], r.split('=')[1]])),
    });
    serving = webhook.start(abort.signal);
    const { port } = await webhook.address();
    env.cluster.internals.setServiceResolver((namespace, name) => {
      if (namespace === SETTINGS_NS && name === 'peer-pods-webhook-svc') return { host: '127.0.0.1', port };
      throw new Error(`no endpoints available for service "${name}"`);
    });

    await startAdaptorsOf(ADAPTOR_DAEMONSET);
    await startAdaptorsOf(SIM_DAEMONSET);
    peerPods = await startPeerPodController(
      { ...env, clusterUid },
      { orphanGraceMs: ORPHAN_GRACE_MS, sweepIntervalMs: 0 },
    );
  });

  after(async () => {
    try {
      abort.abort();
      await serving;
      for (const a of adaptors) await a.stop();
      await peerPods?.stop();
      await configs?.stop();
      await env?.stop();
      await sim?.close?.();
      await qemu?.close?.();
    } finally {
      await cleanupQemu(qemuDir);
      await rm(simDir, { recursive: true, force: true });
      if (certDir) await rm(certDir, { recursive: true, force: true });
    }
  });

  it('advertises each provider its own resource on every node, each claimed by its config', async () => {
    const simClaim = claimAnnotation(SIM_VM, defaults);
    assert.notEqual(simClaim, OWNER_ANNOTATION);
    await eventually(
      async () => {
        const { items } = await env.client.list<Obj>(Nodes);
        return NODES.every((n) => {
          const node = items.find((i) => i.metadata.name === n);
          const a = node?.status?.allocatable ?? {};
          const ann = node?.metadata.annotations ?? {};
          return (
            a[QEMU_VM] === '2' &&
            a[SIM_VM] === '3' &&
            a.cpu !== undefined &&
            ann[OWNER_ANNOTATION] === `${SETTINGS_NS}/qemu` &&
            ann[simClaim] === `${SETTINGS_NS}/simulated`
          );
        });
      },
      { what: `${QEMU_VM}=2 and ${SIM_VM}=3 on ${NODES.join(', ')}` },
    );
    const sims = await env.client.get<PeerPodConfig>(PeerPodConfigs, 'simulated', SETTINGS_NS);
    assert.equal(sims.status?.totalVMs, 6);
    assert.equal(
      sims.status?.conditions?.find((c) => c.type === 'Conflicted'),
      undefined,
    );
  });

  it('runs a pod of each RuntimeClass on its own provider, and deletes each VM there', async () => {
    const onQemu = await runningPod(QEMU_RC);
    const onSim = await runningPod(SIM_RC);
    // The webhook gave each pod its provider's resource in place of cpu.
    assert.deepEqual(onQemu.spec.containers[0].resources.requests, { [QEMU_VM]: '1' });
    assert.deepEqual(onSim.spec.containers[0].resources.requests, { [SIM_VM]: '1' });
    const [qpp] = await peerPodsOf(env, onQemu);
    const [spp] = await peerPodsOf(env, onSim);
    assert.equal(qpp.spec?.cloudProvider, 'qemu');
    assert.equal(spp.spec?.cloudProvider, 'simulated');
    assert.deepEqual(
      (await vmsOf(qemu, onQemu)).map((v) => v.id),
      [qpp.spec?.instanceID],
    );
    assert.deepEqual(
      (await vmsOf(sim, onSim)).map((v) => v.id),
      [spp.spec?.instanceID],
    );
    assert.equal((await vmsOf(sim, onQemu)).length, 0, 'no simulated VM for the qemu pod');
    assert.equal((await vmsOf(qemu, onSim)).length, 0, 'no qemu VM for the simulated pod');

    for (const pod of [onQemu, onSim]) await env.client.delete(Pods, pod.metadata.name as string, 'default');
    await eventually(
      async () =>
        !(await getPod(env, onQemu)) &&
        !(await getPod(env, onSim)) &&
        (await vmsOf(qemu, onQemu)).length === 0 &&
        (await vmsOf(sim, onSim)).length === 0,
      { timeoutMs: 30_000, what: 'both pods and their VMs to be gone' },
    );
  });

  it('deletes the VM of a dangling PeerPod of each provider on that provider', async () => {
    const made: Array<{ provider: CloudProvider; vm: Instance; pp: PeerPod }> = [];
    for (const provider of [qemu, sim]) {
      const vm = await provider.createInstance({
        podName: `dangling-${provider.name}`,
        podNamespace: 'default',
        sandboxId: randomUUID(),
        vcpus: 0,
        memoryMiB: 0,
        tags: { [CLUSTER_UID_TAG]: clusterUid },
      });
      const pp = await env.client.create<PeerPod>(PeerPods, {
        apiVersion: 'confidentialcontainers.org/v1alpha1',
        kind: 'PeerPod',
        metadata: { name: `dangling-${provider.name}`, namespace: 'default', finalizers: [PEERPOD_FINALIZER] },
        spec: { cloudProvider: provider.name, instanceID: vm.id },
      });
      made.push({ provider, vm, pp });
    }
    for (const { pp } of made) await env.client.delete(PeerPods, pp.metadata.name as string, 'default');
    await eventually(
      async () => {
        for (const { provider, vm, pp } of made) {
          if ((await provider.listInstances({})).some((i) => i.id === vm.id)) return false;
          const left = await env.client.list<PeerPod>(PeerPods, { namespace: 'default' });
          if (left.items.some((x) => x.metadata.name === pp.metadata.name)) return false;
        }
        return true;
      },
      { timeoutMs: 30_000, what: 'each dangling VM deleted on its provider and its PeerPod gone' },
    );
  });

  it('sweeps an orphan VM of each provider, the second one found by its settings alone', async () => {
    const orphans: Record<string, string> = {};
    for (const provider of [qemu, sim]) {
      const vm = await provider.createInstance({
        podName: `orphan-${provider.name}`,
        podNamespace: 'default',
        sandboxId: randomUUID(),
        vcpus: 0,
        memoryMiB: 0,
        tags: { [CLUSTER_UID_TAG]: clusterUid },
      });
      orphans[provider.name] = vm.id;
    }
    // No PeerPod names either provider any more: the sweep lists both from peer-pods-cm.
    assert.equal((await env.client.listAll<PeerPod>(PeerPods)).items.length, 0);
    const deleted: Record<string, string[]> = {};
    await eventually(
      async () => {
        for (const r of await peerPods.handle.sweeper.sweepOnce()) {
          deleted[r.provider] = [...(deleted[r.provider] ?? []), ...r.deleted];
        }
        return Object.values(deleted).flat().length >= 2;
      },
      { what: 'sweeps past the grace period of both orphans' },
    );
    assert.deepEqual(deleted, { qemu: [orphans.qemu], simulated: [orphans.simulated] });
    assert.equal((await qemu.listInstances({ [CLUSTER_UID_TAG]: clusterUid })).length, 0);
    assert.equal((await sim.listInstances({ [CLUSTER_UID_TAG]: clusterUid })).length, 0);
  });

  it('refuses a config that claims a taken RuntimeClass or resource, with a condition and an event', async () => {
    // As a user applies it (the README's shape).
    const applied = await kubectl(env.cluster.kubeconfigPath, ['apply', '-f', '-'], {
      version: '1.33',
      input:
        `apiVersion: confidentialcontainers.org/v1alpha1\nkind: PeerPodConfig\nmetadata: {name: same-class, namespace: ${SETTINGS_NS}}\n` +
        `spec: {limitPerNode: 1, runtimeClassName: ${SIM_RC}, extendedResource: other.example.com/vm}\n`,
    });
    assert.equal(applied.code, 0, applied.stderr);
    await env.client.create(
      PeerPodConfigs,
      config('same-resource', { limitPerNode: 1, runtimeClassName: 'kata-remote-other', extendedResource: SIM_VM }),
    );
    const refused = async (name: string, reason: string, owner: string) => {
      const cfg = await eventually(
        async () => {
          const c = await env.client.get<PeerPodConfig>(PeerPodConfigs, name, SETTINGS_NS);
          return c.status?.conditions?.some((x) => x.type === 'Conflicted' && x.status === 'True') ? c : undefined;
        },
        { what: `${name} to be refused` },
      );
      const conflicted = cfg.status?.conditions?.find((c) => c.type === 'Conflicted');
      const ready = cfg.status?.conditions?.find((c) => c.type === 'Ready');
      assert.equal(conflicted?.reason, reason);
      assert.match(conflicted?.message ?? '', new RegExp(`already .* by PeerPodConfig ${SETTINGS_NS}/${owner}$`));
      assert.equal(ready?.status, 'False');
      assert.equal(ready?.reason, reason);
      await eventually(
        async () => {
          const { items } = await env.client.list<Obj>(Events, { namespace: SETTINGS_NS });
          return items.some((e) => e.involvedObject?.name === name && e.reason === reason && e.type === 'Warning');
        },
        { what: `a Warning ${reason} event on ${name}` },
      );
    };
    await refused('same-class', 'RuntimeClassConflict', 'simulated');
    for (const version of ['1.27', '1.33']) {
      const waited = await kubectl(
        env.cluster.kubeconfigPath,
        ['wait', '-n', SETTINGS_NS, '--for=condition=Conflicted', '--timeout=10s', 'peerpodconfig/same-class'],
        { version },
      );
      assert.equal(waited.code, 0, waited.stderr);
      assert.match(waited.stdout, /peerpodconfig.confidentialcontainers.org\/same-class condition met/);
    }
    await refused('same-resource', 'ExtendedResourceConflict', 'simulated');
    // Nothing of them was applied: no resource, no adaptor, no route.
    const { items } = await env.client.list<Obj>(Nodes);
    assert.ok(items.every((n) => n.status?.allocatable?.['other.example.com/vm'] === undefined));
    assert.ok(
      items.every((n) => n.status?.allocatable?.[SIM_VM] === '3'),
      'the granted config keeps its resource',
    );
    const daemonSets = await env.client.list<Obj>(DaemonSets, { namespace: SETTINGS_NS });
    assert.deepEqual(daemonSets.items.map((d) => d.metadata.name).sort(), [ADAPTOR_DAEMONSET, SIM_DAEMONSET]);
    const d = await env.client.get<Obj>(Deployments, WEBHOOK_DEPLOYMENT, SETTINGS_NS);
    assert.deepEqual(argValues(d.spec.template.spec.containers[0].args, '--runtime-class-resource'), [
      `${SIM_RC}=${SIM_VM}`,
    ]);
    for (const name of ['same-class', 'same-resource']) await env.client.delete(PeerPodConfigs, name, SETTINGS_NS);
  });

  it('takes off only its own resource when a provider config is deleted', async () => {
    await env.client.delete(PeerPodConfigs, 'simulated', SETTINGS_NS);
    await eventually(
      async () => {
        const { items } = await env.client.list<Obj>(Nodes);
        return items.every(
          (n) =>
            n.status?.allocatable?.[SIM_VM] === undefined &&
            n.metadata.annotations?.[claimAnnotation(SIM_VM, defaults)] === undefined &&
            n.status?.allocatable?.[QEMU_VM] === '2',
        );
      },
      { what: `${SIM_VM} gone from every node, ${QEMU_VM} kept` },
    );
    await eventually(
      async () => {
        const d = await env.client.get<Obj>(Deployments, WEBHOOK_DEPLOYMENT, SETTINGS_NS);
        return argValues(d.spec.template.spec.containers[0].args, '--runtime-class-resource').length === 0;
      },
      { what: 'the webhook Deployment to drop the simulated route' },
    );
  });
});
