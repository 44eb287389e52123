// Shared fixtures of the kvm-operator tests: KvmDeps built against an embedded control plane, and a
// HandlerContext that records the flags a handler sets, so handlers can be driven one call at a
// time. The sample KVMConfig and Release (shared with the CLI and end-to-end tests) are re-exported
// from test/helpers/kvm.ts.
import { EventRecorder, silentLogger } from '../../src/runtime/index.ts';
import type { HandlerContext, HandlerEvent, KubeClient } from '../../src/runtime/index.ts';
import type { KVMConfig, Release } from '../../src/kvm/api/index.ts';
import type { KvmDeps } from '../../src/kvm/deps.ts';
import { resolveKvmOptions } from '../../src/kvm/options.ts';
import type { KvmOperatorOptions } from '../../src/kvm/options.ts';
import type { WorkloadClusters } from '../../src/kvm/workload/index.ts';
import { WorkloadCredentialsError } from '../../src/kvm/workload/index.ts';
import { OPERATOR_VERSION, sampleRelease } from '../helpers/kvm.ts';

export {
  OPERATOR_VERSION,
  RELEASE_VERSION,
  clientOf,
  createKvmConfig,
  installKvmCrds,
  sampleKvmConfig,
  sampleRelease,
} from '../helpers/kvm.ts';

/** Workload clusters served by fixed clients (or none: every call then fails as "no credentials"). */
export function fixedWorkloadClusters(clients: Record<string, KubeClient> = {}): WorkloadClusters {
  return {
    clientFor(c: KVMConfig): KubeClient {
      const client = clients[c.spec.cluster.id];
      if (!client) throw new WorkloadCredentialsError(`no workload client for ${c.spec.cluster.id} in this test`);
      return client;
    },
    forget() {},
    close() {},
  };
}

export function testDeps(
  client: KubeClient,
  opts: { workload?: WorkloadClusters; releases?: Release[]; options?: KvmOperatorOptions } = {},
): KvmDeps {
  const releases = new Map((opts.releases ?? [sampleRelease()]).map((r) => [r.metadata.name as string, r]));
  return {
    client,
    workload: opts.workload ?? fixedWorkloadClusters(),
    release: (name) => releases.get(name),
    events: new EventRecorder(client, { component: 'kvm-operator-test', logger: silentLogger() }),
    options: resolveKvmOptions({ version: OPERATOR_VERSION, ...opts.options }),
    log: silentLogger(),
  };
}

export interface RecordingContext extends HandlerContext {
  readonly flags: {
    handlerCanceled?: string;
    reconciliationCanceled?: string;
    finalizerKept?: string;
    requeueAfter?: number;
  };
}

/** A HandlerContext for calling a handler directly; `flags` shows what it asked for. */
export function recordingContext(event: HandlerEvent = 'update'): RecordingContext {
  const flags: RecordingContext['flags'] = {};
  return {
    event,
    signal: new AbortController().signal,
    log: silentLogger(),
    flags,
    cancelHandler: (r) => void (flags.handlerCanceled ??= r),
    cancelReconciliation: (r) => void (flags.reconciliationCanceled ??= r),
    keepFinalizer: (r) => void (flags.finalizerKept ??= r),
    requeueAfter: (ms) => void (flags.requeueAfter = Math.min(flags.requeueAfter ?? ms, ms)),
    get handlerCanceled() {
      return flags.handlerCanceled !== undefined;
    },
    get reconciliationCanceled() {
      return flags.reconciliationCanceled !== undefined;
    },
  };
}
