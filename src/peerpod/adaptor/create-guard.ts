// The create-retry guard (CAA#1737: a bad pod-VM image made upstream create a new VM every ~4
// minutes and never delete the old one). One create attempt at a time per pod, and:
//   - an attempt that fails or times out is counted on the PeerPod (api/create-attempts.ts) and the
//     VMs it made are deleted before anything else happens: the one a PartialCreateError carries and
//     every VM tagged with the pod's UID (a provider may make the VM and still report an error);
//   - the next attempt waits `initialBackoffMs · 2ⁿ⁻¹` (capped), starts only once no VM of the pod
//     is left and no timed-out call of it is still running (late-creates.ts), so a pod never has two;
//   - after `maxAttempts` failures the pod gets the condition `peerpods.io/VMCreateFailed` and a
//     Warning naming the provider's error, and no more creates are tried for it.
// A failure count above zero also means "clean up before creating": a retry must not adopt the VM
// of the attempt that failed (providers adopt a VM of the same name). The price: an adaptor killed
// between a create that worked and its record, after earlier failures, replaces that VM once.
import { exponentialDelay, formatDuration } from '../../apimachinery/index.ts';
import { waitForCache } from '../../runtime/index.ts';
import type { KubeObject, ReconcileContext, ReconcileResult } from '../../runtime/index.ts';
import { PartialCreateError } from '../providers/index.ts';
import type { CloudProvider, CreateInstanceRequest, Instance } from '../providers/index.ts';
import { PeerPods, createAttemptsAnnotations, createAttemptsOf } from '../api/index.ts';
import type { CreateAttempts, PeerPod } from '../api/index.ts';
import type { AdaptorDeps } from './deps.ts';
import { podRef, podVmTags } from './deps.ts';
import { VM_CREATE_FAILED_CONDITION, hasTrueCondition, writePodCondition } from './pod-status.ts';
import type { VmSize } from './vm-size.ts';

/** A VM, or what the reconcile returns without one (a requeue while backing off, nothing once given up). */
export type CreateOutcome = { vm: Instance } | { vm?: undefined; result: ReconcileResult | undefined };

/** The provider's create call did not return in time; the call itself goes on (late-creates.ts). */
export class CreateTimeoutError extends Error {
  constructor(provider: string, ms: number) {
    super(`${provider}: the create call did not return within ${duration(ms)}`);
    this.name = 'CreateTimeoutError';
  }
}

/** Event and condition messages carry the error; annotations must stay small. */
const MAX_ERROR_LENGTH = 1024;

export async function createGuarded(
  d: AdaptorDeps,
  cloud: CloudProvider,
  provider: string,
  pod: KubeObject,
  pp: PeerPod,
  size: VmSize,
  ctx: ReconcileContext,
): Promise<CreateOutcome> {
  const uid = pod.metadata.uid as string;
  const attempts = createAttemptsOf(pp);
  if (attempts.failures > 0) await deleteAttemptVms(d, cloud, provider, pod, [], ctx);
  if (attempts.gaveUp) {
    await markGaveUp(d, pod, provider, attempts, ctx);
    return { result: undefined };
  }
  // Polled: the late call's end is no API event.
  if (d.lateCreates.running(uid)) return { result: { requeueAfter: d.opts.createRetry.initialBackoffMs } };
  const wait = (attempts.retryAt?.getTime() ?? 0) - Date.now();
  if (wait > 0) return { result: { requeueAfter: wait } };
  const req: CreateInstanceRequest = {
    podName: pod.metadata.name as string,
    podNamespace: pod.metadata.namespace as string,
    sandboxId: uid,
    vcpus: size.vcpus,
    memoryMiB: size.memoryMiB,
    ...(size.instanceType ? { instanceType: size.instanceType } : {}),
    ...(size.image ? { image: size.image } : {}),
    tags: await podVmTags(d, uid, ctx.signal),
  };
  try {
    return { vm: await createOnce(d, cloud, provider, pod, req) };
  } catch (err) {
    return { result: await recordFailure(d, cloud, provider, pod, pp, attempts.failures + 1, err, ctx) };
  }
}

async function createOnce(
  d: AdaptorDeps,
  cloud: CloudProvider,
  provider: string,
  pod: KubeObject,
  req: CreateInstanceRequest,
): Promise<Instance> {
  const started = Date.now();
  const count = (result: 'ok' | 'failed'): void =>
    d.metrics.operations.inc({ node: d.opts.nodeName, provider, op: 'create', result });
  const call = cloud.createInstance(req);
  const timeoutMs = d.opts.createRetry.timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CreateTimeoutError(provider, timeoutMs)), timeoutMs);
  });
  try {
    const vm = await Promise.race([call, deadline]);
    d.metrics.createSeconds.observe({ provider }, (Date.now() - started) / 1000);
    count('ok');
    return vm;
  } catch (err) {
    count('failed');
    if (err instanceof CreateTimeoutError) {
      d.lateCreates.track(req.sandboxId, call, async (vm) => {
        await cloud.deleteInstance(vm.id);
        d.metrics.operations.inc({ node: d.opts.nodeName, provider, op: 'delete', result: 'ok' });
        d.events.normal(pod, 'VMDeleted', `deleted ${provider} VM ${vm.id}, made by a create that had timed out`);
      });
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

async function recordFailure(
  d: AdaptorDeps,
  cloud: CloudProvider,
  provider: string,
  pod: KubeObject,
  pp: PeerPod,
  failures: number,
  err: unknown,
  ctx: ReconcileContext,
): Promise<ReconcileResult | undefined> {
  const retry = d.opts.createRetry;
  const gaveUp = failures >= retry.maxAttempts;
  const delay = exponentialDelay(failures - 1, retry.initialBackoffMs, retry.maxBackoffMs);
  const retryAt = new Date(Date.now() + delay);
  const lastError = errorText(err);
  const attempts: CreateAttempts = { failures, gaveUp, lastError, ...(gaveUp ? {} : { retryAt }) };
  // Counted before the cleanup: if the cleanup fails or the adaptor dies, the count tells the next
  // reconcile to clean up first, and the backoff still holds.
  const written = await d.client.patch<PeerPod>(
    PeerPods,
    pp.metadata.name as string,
    pp.metadata.namespace,
    { metadata: { annotations: createAttemptsAnnotations(attempts) } },
    'merge',
    { signal: ctx.signal },
  );
  await waitForCache(d.peerPods.holding(written), written);
  const next = gaveUp ? '' : `; retrying in ${duration(delay)}`;
  d.events.warning(
    pod,
    'VMCreateFailed',
    `creating the ${provider} VM (attempt ${failures} of ${retry.maxAttempts}): ${lastError}${next}`,
  );
  ctx.log.warn({ pod: podRef(pod), err, failures, gaveUp, retryInMs: gaveUp ? undefined : delay }, 'VM create failed');
  await deleteAttemptVms(d, cloud, provider, pod, err instanceof PartialCreateError ? [err.instance.id] : [], ctx);
  if (gaveUp) {
    await markGaveUp(d, pod, provider, attempts, ctx);
    return undefined;
  }
  return { requeueAfter: Math.max(1, retryAt.getTime() - Date.now()) };
}

/** Deletes every VM the pod's failed attempts left: `known` IDs and every VM tagged with the pod. */
async function deleteAttemptVms(
  d: AdaptorDeps,
  cloud: CloudProvider,
  provider: string,
  pod: KubeObject,
  known: string[],
  ctx: ReconcileContext,
): Promise<void> {
  const ids = new Set(known);
  for (const vm of await cloud.listInstances(await podVmTags(d, pod.metadata.uid as string, ctx.signal))) {
    ids.add(vm.id);
  }
  for (const id of ids) {
    try {
      await cloud.deleteInstance(id);
    } catch (err) {
      d.metrics.operations.inc({ node: d.opts.nodeName, provider, op: 'delete', result: 'failed' });
      d.events.warning(pod, 'VMDeleteFailed', `deleting ${provider} VM ${id} of a failed create: ${errorText(err)}`);
      // No new attempt starts while it exists: the reconcile is retried and cleans up first.
      throw err;
    }
    d.metrics.operations.inc({ node: d.opts.nodeName, provider, op: 'delete', result: 'ok' });
    d.events.normal(pod, 'VMDeleted', `deleted ${provider} VM ${id} of a failed create`);
    ctx.log.info({ pod: podRef(pod), provider, instanceID: id }, 'VM of a failed create deleted');
  }
}

/** The condition and the Warning, once: a pod that carries the condition was told already. */
async function markGaveUp(
  d: AdaptorDeps,
  pod: KubeObject,
  provider: string,
  attempts: CreateAttempts,
  ctx: ReconcileContext,
): Promise<void> {
  if (hasTrueCondition(pod, VM_CREATE_FAILED_CONDITION)) return;
  const message =
    `gave up after ${attempts.failures} failed creates of the ${provider} VM; last error: ${attempts.lastError}. ` +
    'Delete the pod to try again.';
  // Event first: a crash before the condition repeats the event rather than losing it.
  d.events.warning(pod, 'VMCreateRetriesExhausted', message);
  const written = await writePodCondition(
    d.client,
    pod,
    { type: VM_CREATE_FAILED_CONDITION, status: 'True', reason: 'RetriesExhausted', message },
    ctx.signal,
  );
  await waitForCache(d.pods, written);
  ctx.log.warn({ pod: podRef(pod), failures: attempts.failures }, 'gave up creating the VM');
}

function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}…` : text;
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms}ms` : formatDuration(ms);
}
