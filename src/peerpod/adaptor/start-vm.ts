// Running a pod in a VM, one idempotent step at a time, each re-derived from the API and the
// provider on every reconcile:
//   1. the PeerPod exists (written before the VM, so a VM never exists that no record can lead to);
//   2. the VM exists: createInstance adopts a VM of the same name (`podvm-<pod>-<uid[:8]>`), so a
//      retry after a crash at any point finds the VM it made instead of making a second one;
//   3. the PeerPod names the VM (spec.instanceID, spec.cloudProvider);
//   4. the pod reports Running and Ready with the VM's IP.
// The sandbox ID upstream takes from the kata shim does not exist here: the pod UID stands in for it
// (unique per pod, stable across restarts, and a new pod of the same name gets a new VM name).
import { TerminalError, isAlreadyExists, waitForCache } from '../../runtime/index.ts';
import type { KubeObject, ReconcileContext } from '../../runtime/index.ts';
import { CLUSTER_UID_TAG, PartialCreateError } from '../providers/index.ts';
import type { CloudProvider, Instance } from '../providers/index.ts';
import { PeerPods } from '../api/index.ts';
import type { PeerPod } from '../api/index.ts';
import type { AdaptorDeps } from './deps.ts';
import { hostIpOf, podRef } from './deps.ts';
import { NODE_ANNOTATION, POD_UID_TAG } from './options.ts';
import { newPeerPod, ownerUidOf } from './peerpod-record.ts';
import { reportsRunning, runningStatus, writeRunningStatus } from './pod-status.ts';
import type { VmSize } from './vm-size.ts';

export async function startPod(
  d: AdaptorDeps,
  pod: KubeObject,
  current: PeerPod | undefined,
  size: VmSize,
  ctx: ReconcileContext,
): Promise<void> {
  if (current?.spec?.instanceID && reportsRunning(pod)) return;
  const other = current?.spec?.cloudProvider;
  if (current?.spec?.instanceID && other && other !== d.providers.name()) {
    // Replacing it would leak a VM this adaptor cannot reach; a person has to decide.
    const message = `PeerPod ${current.metadata.name} names a ${other} VM but this node's provider is ${d.providers.name() || 'unset'}`;
    d.events.warning(pod, 'ProviderMismatch', message);
    throw new TerminalError(message);
  }
  // The provider is resolved first, so no PeerPod is written while none is configured.
  const { recorded, vm, provider } = await d.providers.use(async (cloud, name) => {
    const pp = current ?? (await ensurePeerPod(d, pod, name, ctx));
    return { recorded: pp, vm: await createVm(d, cloud, name, pod, size, ctx), provider: name };
  });
  await d.opts.hooks.afterCreateInstance?.(pod, vm, ctx.signal);
  await recordInstance(d, pod, recorded, vm, provider, ctx);
  const ip = vm.ips[0];
  // Retried with backoff: providers that return before the address is known fill it in later.
  if (!ip) throw new Error(`VM ${vm.name} (${vm.id}) has no IP address yet`);
  if (reportsRunning(pod, ip)) return;
  const written = await writeRunningStatus(d.client, pod, runningStatus(pod, ip, hostIpOf(d), vm.id), ctx.signal);
  // Our own status write comes back as an event; the next reconcile must see it to do nothing.
  await waitForCache(d.pods, written);
  ctx.log.info({ pod: podRef(pod), instanceID: vm.id, ip }, 'pod running in its VM');
}

async function ensurePeerPod(
  d: AdaptorDeps,
  pod: KubeObject,
  provider: string,
  ctx: ReconcileContext,
): Promise<PeerPod> {
  const want = newPeerPod(pod, provider, d.opts.nodeName);
  let pp: PeerPod;
  try {
    pp = await d.client.create<PeerPod>(PeerPods, want, { signal: ctx.signal });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    // Written by an earlier attempt the cache had not shown yet.
    pp = await d.client.get<PeerPod>(PeerPods, want.metadata.name as string, want.metadata.namespace, {
      signal: ctx.signal,
    });
    if (ownerUidOf(pp) !== pod.metadata.uid || pp.metadata.deletionTimestamp) {
      throw new Error(`PeerPod ${pp.metadata.namespace}/${pp.metadata.name} exists and belongs to another pod`);
    }
    return pp;
  }
  await waitForCache(d.peerPods, pp);
  ctx.log.info({ pod: podRef(pod), peerPod: pp.metadata.name }, 'PeerPod created');
  return pp;
}

async function createVm(
  d: AdaptorDeps,
  cloud: CloudProvider,
  provider: string,
  pod: KubeObject,
  size: VmSize,
  ctx: ReconcileContext,
): Promise<Instance> {
  const uid = pod.metadata.uid as string;
  const started = Date.now();
  const count = (result: 'ok' | 'failed'): void =>
    d.metrics.operations.inc({ node: d.opts.nodeName, provider, op: 'create', result });
  try {
    const vm = await cloud.createInstance({
      podName: pod.metadata.name as string,
      podNamespace: pod.metadata.namespace as string,
      sandboxId: uid,
      vcpus: size.vcpus,
      memoryMiB: size.memoryMiB,
      ...(size.instanceType ? { instanceType: size.instanceType } : {}),
      ...(size.image ? { image: size.image } : {}),
      tags: { [CLUSTER_UID_TAG]: await d.clusterUid(ctx.signal), [POD_UID_TAG]: uid },
    });
    d.metrics.createSeconds.observe({ provider }, (Date.now() - started) / 1000);
    count('ok');
    return vm;
  } catch (err) {
    count('failed');
    d.events.warning(pod, 'VMCreateFailed', `creating the ${provider} VM: ${(err as Error).message}`);
    if (err instanceof PartialCreateError) {
      // Upstream's StartVM cleanup: a half-made VM is deleted, the retry starts from scratch.
      await cloud.deleteInstance(err.instance.id).catch((e: unknown) => {
        ctx.log.warn({ err: e, instanceID: err.instance.id }, 'deleting a half-created VM failed');
      });
    }
    throw err;
  }
}

async function recordInstance(
  d: AdaptorDeps,
  pod: KubeObject,
  pp: PeerPod,
  vm: Instance,
  provider: string,
  ctx: ReconcileContext,
): Promise<PeerPod> {
  const previous = pp.spec?.instanceID ?? '';
  const annotated = pp.metadata.annotations?.[NODE_ANNOTATION] === d.opts.nodeName;
  if (previous === vm.id && pp.spec?.cloudProvider === provider && annotated) return pp;
  const patch = {
    // Adopting an upstream-written PeerPod: the annotation lets this node's watch see it.
    ...(annotated ? {} : { metadata: { annotations: { [NODE_ANNOTATION]: d.opts.nodeName } } }),
    spec: { instanceID: vm.id, cloudProvider: provider },
  };
  const written = await d.client.patch<PeerPod>(
    PeerPods,
    pp.metadata.name as string,
    pp.metadata.namespace,
    patch,
    'merge',
    {
      signal: ctx.signal,
    },
  );
  await waitForCache(d.peerPods, written);
  if (previous && previous !== vm.id) {
    // The recorded VM died and a new one took its name; make sure the old one is really gone.
    await d.providers.use((cloud) => cloud.deleteInstance(previous));
  }
  if (previous !== vm.id) {
    d.events.normal(
      pod,
      'VMCreated',
      `${provider} VM ${vm.name} (${vm.id}) is running${vm.ips[0] ? ` at ${vm.ips[0]}` : ''}; recorded in PeerPod ${pp.metadata.name}`,
    );
  }
  return written;
}
