// Shared setup of the workload controller tests: kubectl that must succeed, objects read straight
// from storage, and a recorder of every pod change in a namespace.
import assert from 'node:assert/strict';
import type { TestCluster } from '../../../helpers/control-plane.ts';
import { eventually } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import type { JsonObject, ObjectMeta } from '../../../../src/apimachinery/meta/index.ts';
import type { Watcher } from '../../../../src/kube/storage/storage.ts';

export interface Obj extends JsonObject {
  metadata: ObjectMeta & JsonObject;
  spec: JsonObject;
  status: JsonObject;
}

/** Runs kubectl and fails the test unless it exits 0; returns stdout. */
export async function k(cp: TestCluster, ...args: string[]): Promise<string> {
  const r = await kubectl(cp.kubeconfigPath, args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

export async function apply(cp: TestCluster, manifest: JsonObject): Promise<void> {
  const r = await kubectl(cp.kubeconfigPath, ['apply', '-f', '-'], { input: JSON.stringify(manifest) });
  assert.equal(r.code, 0, r.stderr);
}

const PREFIX: Record<string, string> = {
  deployment: '/apps/deployments/',
  rs: '/apps/replicasets/',
  pod: '/core/pods/',
  event: '/core/events/',
  sts: '/apps/statefulsets/',
  ds: '/apps/daemonsets/',
  revision: '/apps/controllerrevisions/',
  pvc: '/core/persistentvolumeclaims/',
};

export function get(cp: TestCluster, kind: keyof typeof PREFIX, ns: string, name: string): Obj | undefined {
  const s = cp.internals.storage.get(`${PREFIX[kind]}${ns}/${name}`);
  return s ? (JSON.parse(s.json) as Obj) : undefined;
}

export function list(cp: TestCluster, kind: keyof typeof PREFIX, ns: string): Obj[] {
  return cp.internals.storage.list(`${PREFIX[kind]}${ns}/`).map((s) => JSON.parse(s.json) as Obj);
}

export function controllerOf(o: Obj): { kind: string; name: string; uid: string } | undefined {
  return (o.metadata.ownerReferences ?? []).find((r) => r.controller);
}

/** ReplicaSets controlled by the Deployment `name`. */
export function replicaSetsOf(cp: TestCluster, ns: string, name: string): Obj[] {
  const d = get(cp, 'deployment', ns, name);
  return list(cp, 'rs', ns).filter((rs) => d && controllerOf(rs)?.uid === d.metadata.uid);
}

/** Pods controlled by the ReplicaSet `rs`. */
export function podsOf(cp: TestCluster, rs: Obj): Obj[] {
  return list(cp, 'pod', rs.metadata.namespace!).filter((p) => controllerOf(p)?.uid === rs.metadata.uid);
}

export function isLive(p: Obj): boolean {
  return !p.metadata.deletionTimestamp && p.status.phase !== 'Succeeded' && p.status.phase !== 'Failed';
}

export function isReady(p: Obj): boolean {
  return ((p.status.conditions ?? []) as JsonObject[]).some((c) => c.type === 'Ready' && c.status === 'True');
}

export function condition(o: Obj | undefined, type: string): JsonObject | undefined {
  return ((o?.status.conditions ?? []) as JsonObject[]).find((c) => c.type === type);
}

export async function rolloutStatus(cp: TestCluster, ns: string, name: string): Promise<string> {
  return k(cp, 'rollout', 'status', `deployment/${name}`, '-n', ns, '--timeout=60s');
}

/** Waits until the Deployment's status reflects its generation and everything is updated and available. */
export async function settled(cp: TestCluster, ns: string, name: string): Promise<Obj> {
  const d = await eventually(
    () => {
      const d = get(cp, 'deployment', ns, name);
      if (!d) return undefined;
      const want = d.spec.replicas as number;
      const s = d.status;
      const ok =
        s.observedGeneration === d.metadata.generation &&
        (s.replicas ?? 0) === want &&
        (s.updatedReplicas ?? 0) === want &&
        (s.availableReplicas ?? 0) === want;
      return ok ? d : undefined;
    },
    { timeoutMs: 30_000, what: `deployment ${ns}/${name} settled` },
  );
  return d!;
}

export function deploymentManifest(
  name: string,
  ns: string,
  opts: { image?: string; replicas?: number; spec?: JsonObject; podSpec?: JsonObject } = {},
): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns },
    spec: {
      replicas: opts.replicas ?? 3,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: opts.image ?? 'nginx:1.27' }], ...opts.podSpec },
      },
      ...opts.spec,
    },
  };
}

/** Calls `onChange` with every pod object of `ns` after each change (DELETED: `undefined` for it). */
export function watchPods(
  cp: TestCluster,
  ns: string,
  onChange: (pods: Map<string, Obj>, key: string) => void,
): Watcher {
  const pods = new Map<string, Obj>();
  for (const p of list(cp, 'pod', ns)) pods.set(p.metadata.name!, p);
  const prefix = `/core/pods/${ns}/`;
  return cp.internals.storage.watch(prefix, cp.internals.storage.currentRevision(), (c) => {
    const name = c.key.slice(prefix.length);
    if (c.type === 'DELETED') pods.delete(name);
    else pods.set(name, JSON.parse(c.json) as Obj);
    onChange(pods, name);
  });
}

export async function namespace(cp: TestCluster, ns: string): Promise<void> {
  await k(cp, 'create', 'namespace', ns);
}
