// Behaviour probes: each exercises one thing the README promises, through the API as a user would
// see it, and throws when it does not happen within its deadline. Every probe makes its own
// objects (fresh names) and leaves nothing behind that the next probe could mistake for success.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  ClusterRoleBindings,
  ConfigMaps,
  DaemonSets,
  Deployments,
  Events,
  Ingresses,
  Leases,
  MutatingWebhookConfigurations,
  Namespaces,
  Nodes,
  PersistentVolumeClaims,
  Pods,
  Secrets,
  ServiceAccounts,
  Services,
  isNotFound,
} from '../../../../src/runtime/index.ts';
import type { KubeObject, PolicyRule, ResourceType } from '../../../../src/runtime/index.ts';
import { PEERPOD_FINALIZER, PeerPodAnnotations, PeerPodConfigs, PeerPods } from '../../../../src/peerpod/index.ts';
import { DrainerConfigs, KVMConfigs, Labels } from '../../../../src/kvm/index.ts';
import { OPERATOR_VERSION, sampleKvmConfig } from '../../../helpers/kvm.ts';
import { waitFor } from '../../../helpers/wait.ts';
import type { World } from './cluster.ts';

/** How long a behaviour may take before the probe calls it broken (it takes 1–3 s when it works). */
export const PROBE_DEADLINE_MS = 15_000;
/**
 * The deadline while a rule is missing: shorter, since a slow success would not prove the rule
 * unneeded anyway (a rule is proven only by the 403 in the log).
 */
export const BROKEN_DEADLINE_MS = 10_000;

export interface ProbeContext {
  w: World;
  /** The component's generated rules (the lease probe reads its Lease's name from them). */
  rules: PolicyRule[];
  deadlineMs: number;
}

export interface Probe {
  /** The promise, in the README's words. */
  promise: string;
  run(ctx: ProbeContext): Promise<void>;
}

let seq = 0;
const fresh = (prefix: string) => `${prefix}-${Date.now().toString(36)}${(seq++).toString(36)}`;

async function gone(fn: () => Promise<unknown>): Promise<boolean> {
  try {
    await fn();
    return false;
  } catch (e) {
    if (isNotFound(e)) return true;
    throw e;
  }
}

async function quietly(fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch {
    // cleanup of something that may not exist
  }
}

/** Releases every finalizer, then deletes: what an administrator does with a stuck object. */
async function forceDelete(w: World, type: ResourceType, name: string, namespace?: string): Promise<void> {
  await quietly(() => w.admin.patch(type, name, namespace, { metadata: { finalizers: null } }, 'merge'));
  await quietly(() => w.admin.delete(type, name, namespace, { gracePeriodSeconds: 0 }));
}

async function eventsAbout(w: World, namespace: string, kind: string, name: string): Promise<KubeObject[]> {
  const all = (await w.admin.list(Events, { namespace })).items;
  return all.filter((e) => {
    const io = (e as { involvedObject?: { kind?: string; name?: string } }).involvedObject;
    return io?.kind === kind && io.name === name;
  });
}

/** The simulated cloud's instance file for `id`. */
const simFile = (w: World, id: string) => path.join(w.simDir, `${id}.json`);

function writeSimInstance(w: World, id: string, tags: Record<string, string>): void {
  const createdAt = new Date(Date.now() - 3_600_000).toISOString();
  const vm = { instance: { id, name: `podvm-${id}`, ips: [], tags, createdAt }, podNamespace: w.appNs };
  writeFileSync(simFile(w, id), JSON.stringify(vm));
}

let simIds = 900_000;

/**
 * A plain (not peer) pod the PeerPod probes name as owner. In the operators' namespace, which the
 * peer-pods webhook leaves alone: its pod creation must not depend on the webhook, which the
 * PeerPodConfig controller's probes take down meanwhile.
 */
async function ownerPod(w: World): Promise<KubeObject> {
  return w.admin.create(Pods, {
    metadata: { name: fresh('owner'), namespace: w.ns },
    spec: { nodeName: w.node, containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.9' }] },
  } as KubeObject);
}

const ownerRef = (pod: KubeObject) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  name: pod.metadata.name,
  uid: pod.metadata.uid,
  controller: true,
});

// --- PeerPod controller ---------------------------------------------------------------------

/** README: "deleting a PeerPod deletes its VM (the finalizer waits for the cloud)". */
export const danglingPeerPodCleaned: Probe = {
  promise: 'a deleted PeerPod gets its VM deleted and its finalizer released',
  async run({ w, deadlineMs }) {
    const id = `sim-${simIds++}`;
    writeSimInstance(w, id, {});
    const name = fresh('dangling');
    // No spec.cloudProvider: the controller falls back to CLOUD_PROVIDER of peer-pods-cm.
    await w.admin.create(PeerPods, {
      metadata: { name, namespace: w.appNs, finalizers: [PEERPOD_FINALIZER] },
      spec: { instanceID: id },
    } as KubeObject);
    try {
      await w.admin.delete(PeerPods, name, w.appNs);
      await waitFor(
        async () => !existsSync(simFile(w, id)) && (await gone(() => w.admin.get(PeerPods, name, w.appNs))),
        `PeerPod ${name} and VM ${id} gone`,
        deadlineMs,
        200,
      );
    } finally {
      await forceDelete(w, PeerPods, name, w.appNs);
    }
  },
};

/** README: "the PeerPod's status shows its phase and conditions". */
export const peerPodStatusReported: Probe = {
  promise: "a PeerPod's status shows phase Active and its Owned condition",
  async run({ w, deadlineMs }) {
    const pod = await ownerPod(w);
    const name = fresh('status');
    try {
      await w.admin.create(PeerPods, {
        metadata: { name, namespace: w.ns, ownerReferences: [ownerRef(pod)] },
        spec: { cloudProvider: 'simulated', instanceID: `sim-${simIds++}` },
      } as KubeObject);
      await waitFor(
        async () => {
          const pp = await w.admin.get(PeerPods, name, w.ns);
          const st = pp.status as { phase?: string; conditions?: Array<{ type: string; status: string }> } | undefined;
          return st?.phase === 'Active' && (st.conditions ?? []).some((c) => c.type === 'Owned' && c.status === 'True');
        },
        `PeerPod ${name} Active and Owned`,
        deadlineMs,
        200,
      );
    } finally {
      await forceDelete(w, PeerPods, name, w.ns);
      await forceDelete(w, Pods, pod.metadata.name as string, w.ns);
    }
  },
};

/** README: "a VM the controller cannot delete is reported as a Warning event on the Pod too". */
export const providerProblemOnPod: Probe = {
  promise: 'a PeerPod whose provider is unknown gets a Warning event on its Pod',
  async run({ w, deadlineMs }) {
    const pod = await ownerPod(w);
    const name = fresh('noprovider');
    try {
      await w.admin.create(PeerPods, {
        metadata: { name, namespace: w.ns, ownerReferences: [ownerRef(pod)], finalizers: [PEERPOD_FINALIZER] },
        spec: { cloudProvider: 'nowhere', instanceID: 'vm-1' },
      } as KubeObject);
      await w.admin.delete(PeerPods, name, w.ns);
      await waitFor(
        async () =>
          (await eventsAbout(w, w.ns, 'Pod', pod.metadata.name as string)).some(
            (e) => (e as { type?: string }).type === 'Warning' && String(e.message ?? '').includes(`PeerPod ${name}`),
          ),
        `a Warning event on Pod ${pod.metadata.name} naming PeerPod ${name}`,
        deadlineMs,
        200,
      );
    } finally {
      await forceDelete(w, PeerPods, name, w.ns);
      await forceDelete(w, Pods, pod.metadata.name as string, w.ns);
    }
  },
};

/** README: "VMs of this cluster that no PeerPod names are swept". */
export const orphanSwept: Probe = {
  promise: "an orphan VM (this cluster's tag, no PeerPod) is deleted by the sweep",
  async run({ w, deadlineMs }) {
    const uid = (await w.admin.get(Namespaces, 'kube-system')).metadata.uid as string;
    const id = `sim-${simIds++}`;
    writeSimInstance(w, id, { 'caa-cluster-uid': uid });
    await waitFor(() => !existsSync(simFile(w, id)), `orphan VM ${id} deleted`, deadlineMs, 200);
  },
};

// --- every leader-elected operator ----------------------------------------------------------

/** The Lease named by the component's `leases get/update` rule. */
function leaseName(rules: PolicyRule[]): string {
  const named = rules.find((r) => r.resources?.includes('leases') && (r.resourceNames ?? []).length > 0);
  if (!named?.resourceNames) throw new Error('the component has no named Lease rule');
  return named.resourceNames[0] as string;
}

/** README: "one active replica at a time, through a Lease"; a deleted Lease is taken again. */
export const leaseHeld: Probe = {
  promise: 'the leader holds and renews its Lease (recreated when deleted)',
  async run({ w, rules, deadlineMs }) {
    const name = leaseName(rules);
    await quietly(() => w.admin.delete(Leases, name, w.ns));
    const renewals = new Set<string>();
    await waitFor(
      async () => {
        try {
          const l = await w.admin.get(Leases, name, w.ns);
          const spec = l.spec as { holderIdentity?: string; renewTime?: string } | undefined;
          if (spec?.holderIdentity && spec.renewTime) renewals.add(spec.renewTime);
        } catch (e) {
          if (!isNotFound(e)) throw e;
        }
        return renewals.size >= 2;
      },
      `Lease ${name} recreated and renewed`,
      deadlineMs,
      250,
    );
  },
};

// --- PeerPodConfig controller ---------------------------------------------------------------

const CAPACITY = 'kata.peerpods.io/vm';
const CLAIM = 'peerpodconfig.confidentialcontainers.org/owner';
let limit = 4;

/** Moves the PeerPodConfig's limit between 3 and 4: a new generation the controller must answer. */
async function toggleLimit(w: World): Promise<number | undefined> {
  limit = limit === 4 ? 3 : 4;
  const cfg = await w.admin.patch(PeerPodConfigs, 'peerpodconfig', w.ns, { spec: { limit: String(limit) } }, 'merge');
  return cfg.metadata.generation;
}

/** README: "the PeerPodConfig's limit is spread over the nodes as extended resource capacity". */
export const limitAdvertised: Probe = {
  promise: "a new limit shows in the nodes' capacity and in the PeerPodConfig's status",
  async run({ w, deadlineMs }) {
    // The claim is taken again too (a node the PeerPodConfig has not claimed yet).
    await w.admin.patch(Nodes, w.node, undefined, { metadata: { annotations: { [CLAIM]: null } } }, 'merge');
    const generation = await toggleLimit(w);
    await waitFor(
      async () => {
        const node = await w.admin.get(Nodes, w.node);
        const capacity = (node.status as { capacity?: Record<string, string> } | undefined)?.capacity ?? {};
        const c = await w.admin.get(PeerPodConfigs, 'peerpodconfig', w.ns);
        const st = c.status as
          { observedGeneration?: number; conditions?: Array<{ type: string; status: string }> } | undefined;
        return (
          capacity[CAPACITY] === String(limit) &&
          node.metadata.annotations?.[CLAIM] !== undefined &&
          st?.observedGeneration === generation &&
          (st?.conditions ?? []).some((x) => x.type === 'Ready' && x.status === 'True')
        );
      },
      `capacity ${limit}, the node claimed and status Ready at generation ${generation}`,
      deadlineMs,
      200,
    );
  },
};

let sizeSeq = 0;

/**
 * README: "the advertised kata.peerpods.io/vm never exceeds what the provider can hold … counted at
 * the VM sizes its PeerPods record". The simulated cloud's quota (SIMULATED_MAX_INSTANCES) is in
 * the Secret, CLOUD_PROVIDER in the ConfigMap, and the VMs of this cluster carry the kube-system
 * namespace's UID: each read is needed for a WithinCapacity answer that names the size in use.
 */
export const capacityEvaluated: Probe = {
  promise: "the PeerPodConfig's CapacityLimited condition shows the provider's quota, counted at the VM sizes in use",
  async run({ w, deadlineMs }) {
    const pod = await ownerPod(w);
    const name = fresh('sized');
    // A size no other PeerPod records, so the message can only name it after this PeerPod is listed.
    const size = `3/${300 + sizeSeq++}Mi`;
    let last = '';
    try {
      await w.admin.create(PeerPods, {
        metadata: {
          name,
          namespace: w.ns,
          ownerReferences: [ownerRef(pod)],
          annotations: { [PeerPodAnnotations.vmSize]: size },
        },
        spec: { cloudProvider: 'simulated', instanceID: `sim-${simIds++}` },
      } as KubeObject);
      const generation = await toggleLimit(w);
      await waitFor(
        async () => {
          const c = await w.admin.get(PeerPodConfigs, 'peerpodconfig', w.ns);
          const conds =
            (
              c.status as
                | { conditions?: Array<{ type: string; reason: string; message: string; observedGeneration?: number }> }
                | undefined
            )?.conditions ?? [];
          const cond = conds.find((x) => x.type === 'CapacityLimited');
          last = JSON.stringify(cond);
          return (
            cond !== undefined &&
            cond.observedGeneration === generation &&
            cond.reason === 'WithinCapacity' &&
            /of 50 simulated instances in use/.test(cond.message) &&
            cond.message.includes(`${size} x1`)
          );
        },
        `CapacityLimited WithinCapacity at generation ${generation}, naming the quota and VM size ${size}`,
        deadlineMs,
        200,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; last: ${last}`);
      });
    } finally {
      await forceDelete(w, PeerPods, name, w.ns);
      await forceDelete(w, Pods, pod.metadata.name as string, w.ns);
    }
  },
};

/** README: "the PeerPodConfig controller deploys and keeps <object>": deleted, it comes back. */
function restored(what: string, type: ResourceType, name: (w: World) => string, namespaced: boolean): Probe {
  return {
    promise: `the ${what} the PeerPodConfig deploys is recreated when deleted`,
    async run({ w, deadlineMs }) {
      const ns = namespaced ? w.ns : undefined;
      const old = await w.admin.get(type, name(w), ns);
      await w.admin.delete(type, name(w), ns);
      await waitFor(
        async () => {
          try {
            return (await w.admin.get(type, name(w), ns)).metadata.uid !== old.metadata.uid;
          } catch (e) {
            if (isNotFound(e)) return false;
            throw e;
          }
        },
        `${what} ${name(w)} recreated`,
        deadlineMs,
        200,
      );
    },
  };
}

export const adaptorDaemonSetRestored: Probe = {
  promise: 'the adaptor DaemonSet is recreated when deleted, with an AdaptorDeployed event',
  async run(ctx) {
    const before = new Date().toISOString();
    await restored('adaptor DaemonSet', DaemonSets, () => 'peerpodconfig-ctrl-caa-daemon', true).run(ctx);
    await waitFor(
      async () =>
        (await eventsAbout(ctx.w, ctx.w.ns, 'PeerPodConfig', 'peerpodconfig')).some(
          (e) => e.reason === 'AdaptorDeployed' && String(e.lastTimestamp ?? e.eventTime ?? '') >= before.slice(0, 19),
        ),
      'an AdaptorDeployed event on the PeerPodConfig',
      ctx.deadlineMs,
      200,
    );
  },
};
export const webhookDeploymentRestored = restored('webhook Deployment', Deployments, () => 'peer-pods-webhook', true);
export const webhookServiceRestored = restored('webhook Service', Services, () => 'peer-pods-webhook-svc', true);
export const webhookSecretRestored = restored(
  'webhook certificate Secret',
  Secrets,
  () => 'peer-pods-webhook-svc-secret',
  true,
);
export const webhookConfigurationRestored: Probe = {
  promise: 'the MutatingWebhookConfiguration is recreated when deleted',
  async run(ctx) {
    const all = (await ctx.w.admin.list(MutatingWebhookConfigurations)).items;
    const mine = all.find((m) => JSON.stringify(m).includes('peer-pods-webhook-svc'));
    if (!mine) throw new Error('no MutatingWebhookConfiguration points at peer-pods-webhook-svc');
    const name = mine.metadata.name as string;
    await restored('MutatingWebhookConfiguration', MutatingWebhookConfigurations, () => name, false).run(ctx);
  },
};

// --- adaptor --------------------------------------------------------------------------------

/** README: "a pod with runtimeClassName kata-remote runs in a VM; its PeerPod records the VM". */
export const peerPodRuns: Probe = {
  promise: 'a kata-remote pod runs in a VM, recorded in its PeerPod, with a VMCreated event',
  async run({ w, deadlineMs }) {
    const name = fresh('peer');
    await w.admin.create(Pods, {
      metadata: { name, namespace: w.appNs },
      spec: { runtimeClassName: 'kata-remote', containers: [{ name: 'app', image: 'nginx' }] },
    } as KubeObject);
    try {
      await waitFor(
        async () => {
          const pod = await w.admin.get(Pods, name, w.appNs);
          if ((pod.status as { phase?: string } | undefined)?.phase !== 'Running') return false;
          const pps = (await w.admin.list(PeerPods, { namespace: w.appNs })).items.filter((pp) =>
            (pp.metadata.ownerReferences ?? []).some((r) => r.uid === pod.metadata.uid),
          );
          const id = (pps[0]?.spec as { instanceID?: string } | undefined)?.instanceID;
          if (!id || !existsSync(simFile(w, id))) return false;
          return (await eventsAbout(w, w.appNs, 'Pod', name)).some((e) => e.reason === 'VMCreated');
        },
        `peer pod ${name} Running in a recorded VM`,
        deadlineMs,
        200,
      );
    } finally {
      await forceDelete(w, Pods, name, w.appNs);
      for (const pp of (await w.admin.list(PeerPods, { namespace: w.appNs })).items) {
        if (pp.metadata.ownerReferences?.some((r) => r.name === name)) {
          await forceDelete(w, PeerPods, pp.metadata.name as string, w.appNs);
        }
      }
    }
  },
};

// --- kvm-operator ---------------------------------------------------------------------------

let kvmIds = 0;

/** README (kvm-operator): "a KVMConfig gets its cluster: namespace, account, roles, config, node deployments, services, ingresses". */
export const kvmClusterCreated: Probe = {
  promise:
    'a KVMConfig gets its namespace, ServiceAccount, bindings, ConfigMaps, Deployments, Services, Ingresses and a ClusterCreating event',
  async run({ w, deadlineMs }) {
    const id = `lp${(Date.now() % 1000).toString(36)}${(kvmIds++).toString(36)}`;
    const cfg = sampleKvmConfig({ id, masters: 1, workers: 1 });
    // The masters' etcd data on PersistentVolumeClaims.
    cfg.spec.kvm.k8sKVM = { storageType: 'persistentVolume' };
    await w.admin.create(KVMConfigs, cfg);
    try {
      let missing = '';
      const lacks = (what: string) => {
        missing = what;
        return false;
      };
      await waitFor(
        async () => {
          const has = async (type: ResourceType, n: string, ns?: string) =>
            !(await gone(() => w.admin.get(type, n, ns)));
          const count = async (type: ResourceType) =>
            (await w.admin.list(type, { namespace: id })).items.filter((o) => o.metadata.name !== 'kube-root-ca.crt')
              .length;
          if (!(await has(Namespaces, id))) return lacks('namespace');
          if (!(await has(ServiceAccounts, id, id))) return lacks('ServiceAccount');
          if (!(await has(ClusterRoleBindings, id)) || !(await has(ClusterRoleBindings, `${id}-psp`)))
            return lacks('ClusterRoleBindings');
          if ((await count(ConfigMaps)) < 2) return lacks('ConfigMaps');
          if ((await count(Deployments)) < 2) return lacks('Deployments');
          if ((await count(Services)) < 2) return lacks('Services');
          if ((await count(Ingresses)) < 2) return lacks('Ingresses');
          if ((await count(PersistentVolumeClaims)) < 1) return lacks('PersistentVolumeClaims');
          const cfg = await w.admin.get(KVMConfigs, id, 'default');
          const creating = (cfg.status as { cluster?: { conditions?: Array<{ type: string }> } } | undefined)?.cluster
            ?.conditions;
          if (!(creating ?? []).some((c) => c.type === 'Creating')) return lacks('status condition Creating');
          const events = await eventsAbout(w, 'default', 'KVMConfig', id);
          return events.some((e) => e.reason === 'ClusterCreating') || lacks('ClusterCreating event');
        },
        `the objects of cluster ${id}`,
        deadlineMs,
        250,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; missing: ${missing}`);
      });
    } finally {
      await forceDelete(w, KVMConfigs, id, 'default');
      await quietly(() => w.admin.delete(Namespaces, id));
      await quietly(() => w.admin.delete(ClusterRoleBindings, id));
      await quietly(() => w.admin.delete(ClusterRoleBindings, `${id}-psp`));
    }
  },
};

/** README (kvm-operator): "the node drainer reports a drain it cannot do as Timeout". */
export const drainerConfigTimedOut: Probe = {
  promise: 'a DrainerConfig for a cluster that does not exist ends with a Timeout condition',
  async run({ w, deadlineMs }) {
    const name = fresh('drain');
    const id = 'gone1';
    await w.admin.create(DrainerConfigs, {
      metadata: {
        name,
        namespace: 'default',
        labels: { [Labels.cluster]: id, [Labels.operatorVersion]: OPERATOR_VERSION },
      },
      spec: {
        guest: { cluster: { api: { endpoint: `api.${id}.k8s.example.com` }, id }, node: { name } },
        versionBundle: { version: '0.2.0' },
      },
    } as KubeObject);
    try {
      await waitFor(
        async () => {
          const dc = await w.admin.get(DrainerConfigs, name, 'default');
          const conds = (dc.status as { conditions?: Array<{ type: string }> } | undefined)?.conditions ?? [];
          return conds.some((c) => c.type === 'Timeout');
        },
        `DrainerConfig ${name} Timeout`,
        deadlineMs,
        200,
      );
    } finally {
      await forceDelete(w, DrainerConfigs, name, 'default');
    }
  },
};
