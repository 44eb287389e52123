// The cluster the least-privilege test breaks rule by rule: the embedded control plane with RBAC
// enforced and OwnerReferencesPermissionEnforcement on (as OpenShift runs it), the process runtime
// that runs the operators' images as pods, `peerpods deploy`, and a PeerPodConfig over the
// simulated cloud, whose instances live in a directory every operator pod shares.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startControlPlane } from '../../../../src/kube/index.ts';
import type { ControlPlane } from '../../../../src/kube/index.ts';
import {
  ClusterRoles,
  ConfigMaps,
  Deployments,
  KubeClient,
  Namespaces,
  Pods,
  RuntimeClasses,
  Secrets,
  silentLogger,
} from '../../../../src/runtime/index.ts';
import { PeerPodConfigs, qemuProcessesUnder } from '../../../../src/peerpod/index.ts';
import { KVM_DEFAULTS, Releases } from '../../../../src/kvm/index.ts';
import { sampleRelease } from '../../../helpers/kvm.ts';
import type { KubeObject } from '../../../../src/runtime/index.ts';
import { processRuntimeOptions } from '../../../../src/cli/cluster/process-runtime.ts';
import { deployTo } from '../../../../src/cli/manifests/operations.ts';
import { DEFAULT_NAMESPACE } from '../../../../src/cli/manifests/layers.ts';
import type { ManifestOptions } from '../../../../src/cli/manifests/layers.ts';
import { waitFor } from '../../../helpers/wait.ts';

/**
 * Not under /tmp, which the PeerPod controller's pod mounts an emptyDir over (it would not see
 * the simulated cloud's directory there).
 */
const STATE_TMPDIR = '/var/tmp';

export interface World {
  cp: ControlPlane;
  admin: KubeClient;
  kubeconfigPath: string;
  /** The operators' namespace. */
  ns: string;
  /** Where the probes put their pods and PeerPods. */
  appNs: string;
  /** The one worker node. */
  node: string;
  /** The simulated cloud: one JSON file per instance. */
  simDir: string;
  stop(): Promise<void>;
}

/**
 * A further provider (`peerpods deploy --extra-provider`): qemu behind kata-remote-qemu, with its own
 * PeerPodConfig, ConfigMap and Secret, so its Roles are proven like the components' own.
 */
export const EXTRA_PROVIDER = {
  provider: 'qemu',
  runtimeClassName: 'kata-remote-qemu',
  configMap: 'peer-pods-cm-qemu',
  secret: 'peer-pods-secret-qemu',
} as const;

/** The further provider's PeerPodConfig. */
export const EXTRA_CONFIG = 'peerpodconfig-qemu';

/** The manifests the world deploys (and whose rules the test proves). */
export const WORLD_MANIFEST: ManifestOptions = {
  extraProviders: [
    {
      runtimeClassName: EXTRA_PROVIDER.runtimeClassName,
      configMap: EXTRA_PROVIDER.configMap,
      secret: EXTRA_PROVIDER.secret,
    },
  ],
};

/** Flags the PeerPod controller's Deployment gets: an orphan sweep quick enough to watch. */
export const PEERPOD_CONTROLLER_ARGS = ['--orphan-grace=5s', '--sweep-interval=2s'];

export async function startWorld(): Promise<World> {
  const dir = mkdtempSync(path.join(STATE_TMPDIR, 'peerpods-least-privilege-'));
  const kubeconfigPath = path.join(dir, 'kubeconfig');
  const simDir = path.join(dir, 'sim');
  mkdirSync(simDir);
  const cp = await startControlPlane({
    port: 0,
    kubeconfigPath,
    nodes: 0,
    processRuntime: processRuntimeOptions(path.join(dir, 'cluster'), []),
    admissionPlugins: ['OwnerReferencesPermissionEnforcement'],
  });
  cp.internals.registerNodeAgent('kata-remote');
  cp.internals.registerNodeAgent(EXTRA_PROVIDER.runtimeClassName);
  // Pod IPs are loopback addresses derived from the node's index: a high, random index keeps this
  // cluster's pods off the addresses of another embedded cluster running on the machine.
  const node = await cp.internals.nodes.add(`node-${100 + Math.floor(Math.random() * 150)}`);
  const admin = KubeClient.fromKubeconfigString(cp.kubeconfig, { logger: silentLogger() });
  const ns = DEFAULT_NAMESPACE;
  const opts: ManifestOptions = { ...WORLD_MANIFEST, peerPodControllerArgs: PEERPOD_CONTROLLER_ARGS };
  await deployTo(admin, opts, () => {});
  // `kubectl set env deploy/peerpod-controller LOG_LEVEL=debug`: it reports a refused read of a
  // PeerPod's owner Pod (the event on the Pod is then skipped) at debug level only.
  await admin.patch(
    Deployments,
    'peerpod-controller',
    ns,
    [{ op: 'add', path: '/spec/template/spec/containers/0/env/-', value: { name: 'LOG_LEVEL', value: 'debug' } }],
    'json',
  );
  const appNs = 'least-privilege';
  await admin.create(Namespaces, { metadata: { name: appNs } });
  await admin.create(ConfigMaps, {
    metadata: { name: 'peer-pods-cm', namespace: ns },
    data: { CLOUD_PROVIDER: 'simulated', SIMULATED_STATE_DIR: simDir },
  } as KubeObject);
  // The simulated cloud's quota where a cloud's credentials go: the PeerPodConfig controller's
  // capacity answer needs both reads.
  await admin.create(Secrets, {
    metadata: { name: 'peer-pods-secret', namespace: ns },
    stringData: { SIMULATED_MAX_INSTANCES: '50' },
  } as KubeObject);
  // The two ClusterRoles the kvm-operator binds each workload cluster's account to (KVM_DEFAULTS):
  // the platform's, not deploy's, so they stand in here — with rules the operator does not hold
  // itself, which it may grant only through its `bind` rule.
  await admin.create(ClusterRoles, {
    metadata: { name: KVM_DEFAULTS.clusterRoleGeneral },
    rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] }],
  } as KubeObject);
  await admin.create(ClusterRoles, {
    metadata: { name: KVM_DEFAULTS.clusterRolePsp },
    rules: [
      {
        apiGroups: ['policy'],
        resources: ['podsecuritypolicies'],
        verbs: ['use'],
        resourceNames: [KVM_DEFAULTS.clusterRolePsp],
      },
    ],
  } as KubeObject);
  // The release every probe's KVMConfig names.
  await admin.create(Releases, sampleRelease());
  await admin.create(PeerPodConfigs, {
    metadata: { name: 'peerpodconfig', namespace: ns },
    spec: { limit: '4' },
  } as KubeObject);
  const qemuDir = path.join(dir, 'qemu');
  await admin.create(RuntimeClasses, {
    metadata: { name: EXTRA_PROVIDER.runtimeClassName },
    handler: EXTRA_PROVIDER.runtimeClassName,
  } as KubeObject);
  await admin.create(ConfigMaps, {
    metadata: { name: EXTRA_PROVIDER.configMap, namespace: ns },
    data: { CLOUD_PROVIDER: 'qemu', QEMU_STATE_DIR: qemuDir, QEMU_DEFAULT_VCPUS: '1', QEMU_DEFAULT_MEMORY: '128' },
  } as KubeObject);
  await admin.create(Secrets, {
    metadata: { name: EXTRA_PROVIDER.secret, namespace: ns },
    stringData: {},
  } as KubeObject);
  await admin.create(PeerPodConfigs, {
    metadata: { name: EXTRA_CONFIG, namespace: ns },
    spec: {
      limit: '2',
      runtimeClassName: EXTRA_PROVIDER.runtimeClassName,
      extendedResource: `${EXTRA_PROVIDER.provider}.kata.peerpods.io/vm`,
      cloudProvider: EXTRA_PROVIDER.provider,
      configMapName: EXTRA_PROVIDER.configMap,
      cloudSecretName: EXTRA_PROVIDER.secret,
    },
  } as KubeObject);
  return {
    cp,
    admin,
    kubeconfigPath,
    ns,
    appNs,
    node,
    simDir,
    async stop() {
      admin.close();
      await cp.stop();
      // QEMU VMs are processes of their own: none may outlive the test.
      for (const vm of await qemuProcessesUnder(qemuDir)) {
        try {
          process.kill(vm.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The live pods running as `serviceAccount` in the operators' namespace (not being deleted). */
export async function podsOf(w: World, serviceAccount: string): Promise<KubeObject[]> {
  const pods = (await w.admin.list(Pods, { namespace: w.ns })).items;
  return pods.filter(
    (p) =>
      (p.spec as { serviceAccountName?: string } | undefined)?.serviceAccountName === serviceAccount &&
      !p.metadata.deletionTimestamp,
  );
}

function running(p: KubeObject): boolean {
  const s = p.status as { phase?: string; containerStatuses?: Array<{ state?: { running?: unknown } }> } | undefined;
  return s?.phase === 'Running' && (s.containerStatuses ?? []).every((c) => c.state?.running !== undefined);
}

export function ready(p: KubeObject): boolean {
  const conds = (p.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? [];
  return conds.some((c) => c.type === 'Ready' && c.status === 'True');
}

/**
 * Deletes the component's pods (its Deployment or DaemonSet replaces them) and waits for the
 * replacements' processes: a restarted operator lists, watches and elects anew under its current
 * rules (kube does not re-authorize an open watch). Returns the new pods' names.
 */
export async function restart(w: World, serviceAccount: string, opts: { ready: boolean }): Promise<string[]> {
  const old = await podsOf(w, serviceAccount);
  if (old.length === 0) throw new Error(`no pod runs as ${serviceAccount}`);
  const oldUids = new Set(old.map((p) => p.metadata.uid));
  for (const p of old) await w.admin.delete(Pods, p.metadata.name as string, w.ns);
  let names: string[] = [];
  await waitFor(
    async () => {
      const now = await podsOf(w, serviceAccount);
      const fresh = now.filter((p) => !oldUids.has(p.metadata.uid));
      names = fresh.map((p) => p.metadata.name as string);
      return (
        fresh.length >= old.length &&
        fresh.length === now.length &&
        fresh.every((p) => running(p) && (!opts.ready || ready(p)))
      );
    },
    `${serviceAccount}'s pods replaced${opts.ready ? ' and Ready' : ''}`,
    90_000,
    200,
  );
  return names;
}

/** Waits until every component pod is Ready. */
export async function allReady(w: World, serviceAccounts: string[], timeoutMs = 120_000): Promise<void> {
  await waitFor(
    async () => {
      for (const sa of serviceAccounts) {
        const pods = await podsOf(w, sa);
        if (pods.length === 0 || !pods.every(ready)) return false;
      }
      return true;
    },
    `pods of ${serviceAccounts.join(', ')} Ready`,
    timeoutMs,
    250,
  );
}

/** A pod's log, through the pods/log endpoint `kubectl logs` reads. */
export async function podLog(w: World, pod: string): Promise<string> {
  try {
    const r = await w.admin.request('GET', `/api/v1/namespaces/${w.ns}/pods/${pod}/log`);
    return typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  } catch {
    return '';
  }
}
