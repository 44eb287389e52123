// The container configuration of process pods, resolved from the embedded API as the kubelet
// does before CreateContainer: the pod's volumes (set up once per pod, then kept up to date
// while the pod lives), the container's environment, and its mounts.
//
// Refreshing: one storage watch for all pods; a change to an object some pod's volume was built
// from (a ConfigMap, a Secret, the pod itself for downwardAPI files) rewrites that volume
// atomically. A rewrite that fails (the object was deleted) keeps the old files, as the kubelet
// does. subPath mounts are copies (see volumes/mounts.ts) and stay as they were.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { Change, Watcher } from '../../storage/storage.ts';
import type { ContainerConfig, ContainerConfigSource, VolumeMount } from './container-config.ts';
import { podAddresses } from './downward.ts';
import { makeEnvironmentVariables } from './env.ts';
import { storeReader, type KubeInternals, type ObjectReader } from './objects.ts';
import type { ApiServerAddress } from './service-env.ts';
import { makeMounts } from './volumes/mounts.ts';
import type { PayloadContext } from './volumes/payloads.ts';
import { PodTokens } from './volumes/service-account-tokens.ts';
import type { PodTokenSource } from '../../auth/tokens/index.ts';
import { setUpPodVolumes, type PodVolume } from './volumes/pod-volumes.ts';
import {
  SERVICE_ACCOUNT_MOUNT_PATH,
  SERVICE_ACCOUNT_SOURCE,
  SERVICE_ACCOUNT_VOLUME,
  automountsServiceAccount,
  mountsServiceAccountPath,
} from './volumes/service-account.ts';

export interface ConfigSourceSettings {
  /** Where containers reach the API server (KUBERNETES_SERVICE_HOST/PORT). */
  apiServer(): ApiServerAddress;
  /** Pod-bound tokens of the pod's ServiceAccount, for serviceAccountToken projections. */
  podTokens: PodTokenSource;
  /**
   * How often a pod's token-bearing volumes are looked at again at most, as the kubelet's pod
   * sync period (1 min); a token due earlier is replaced when due.
   */
  tokenResyncMs?: number;
  /** The cluster CA (`ca.crt`, and the `kube-root-ca.crt` ConfigMap when none is stored). */
  caPem(): string;
  /** Holds the simulated nodes' filesystems (`nodes/<node>/rootfs`), which hostPath volumes use. */
  stateDir: string;
}

interface PodState {
  podDir: string;
  pod: JsonObject;
  volumes: Map<string, PodVolume>;
  tokens: PodTokens;
  tokenTimer?: NodeJS.Timeout;
}

const TOKEN_RESYNC_MS = 60_000;

function uidOf(pod: JsonObject): string {
  return String((pod.metadata as JsonObject | undefined)?.uid ?? '');
}

export class ApiContainerConfigSource implements ContainerConfigSource {
  private readonly reader: ObjectReader;
  private readonly pods = new Map<string, PodState>();
  private watcher?: Watcher;
  /** Changed storage keys per pod uid, waiting for the next refresh pass. */
  private readonly pending = new Map<string, Set<string>>();
  private flushing?: NodeJS.Immediate;
  /**
   * Every storage key some pod's volumes are built from; undefined once a pod came, went or had
   * its volumes rewritten (a rewrite can change what a volume reads). Every change in the cluster
   * reaches every kubelet's watch, so most must be dismissed with one lookup.
   */
  private watchedKeys?: Set<string>;

  constructor(
    private readonly kube: KubeInternals,
    private readonly settings: ConfigSourceSettings,
  ) {
    const base = storeReader(kube);
    // No controller publishes kube-root-ca.crt here; projected volumes written for a real
    // cluster (and the service-account volume) still find the CA.
    this.reader = {
      ...base,
      get: (kind, namespace, name) =>
        base.get(kind, namespace, name) ??
        (kind === 'configmaps' && name === 'kube-root-ca.crt'
          ? { metadata: { name, namespace }, data: { 'ca.crt': settings.caPem() } }
          : undefined),
    };
  }

  async prepare(pod: JsonObject, container: JsonObject, podDir: string): Promise<ContainerConfig> {
    const state = this.podState(pod, podDir);
    const spec = (pod.spec ?? {}) as JsonObject;
    const node = this.reader.get('nodes', '', String(spec.nodeName ?? ''));
    const nodeStatus = (node?.status ?? {}) as JsonObject;
    const nodeIPs = ((nodeStatus.addresses ?? []) as JsonObject[])
      .filter((a) => a.type === 'InternalIP')
      .map((a) => String(a.address));
    const env = makeEnvironmentVariables({
      pod,
      container,
      reader: this.reader,
      apiServer: this.settings.apiServer(),
      addresses: podAddresses(pod, nodeIPs),
      allocatable: (nodeStatus.allocatable ?? {}) as Record<string, unknown>,
    });
    const mounts: VolumeMount[] = makeMounts(container, state.volumes, podDir, env);
    const sa = state.volumes.get(SERVICE_ACCOUNT_VOLUME);
    if (sa && !mountsServiceAccountPath(container))
      mounts.push({ mountPath: SERVICE_ACCOUNT_MOUNT_PATH, hostPath: sa.path, readOnly: true });
    const workingDir =
      typeof container.workingDir === 'string' && container.workingDir ? container.workingDir : undefined;
    return { env, mounts, ...(workingDir ? { workingDir } : {}) };
  }

  release(podUid: string): void {
    clearTimeout(this.pods.get(podUid)?.tokenTimer);
    this.pods.delete(podUid);
    this.watchedKeys = undefined;
    this.pending.delete(podUid);
    if (this.pods.size === 0) {
      this.watcher?.stop();
      this.watcher = undefined;
    }
  }

  /** Stops every refresh (the kubelet is stopping). */
  stop(): void {
    for (const uid of [...this.pods.keys()]) this.release(uid);
    if (this.flushing) clearImmediate(this.flushing);
    this.flushing = undefined;
  }

  private context(pod: JsonObject, tokens: PodTokens): PayloadContext {
    const spec = (pod.spec ?? {}) as JsonObject;
    const node = this.reader.get('nodes', '', String(spec.nodeName ?? ''));
    const allocatable = ((node?.status as JsonObject | undefined)?.allocatable ?? {}) as Record<string, unknown>;
    return { reader: this.reader, pod, allocatable, tokens };
  }

  /** Rewrites the pod's volumes when its first token is due, or at the resync period. */
  private scheduleTokenRefresh(uid: string, state: PodState): void {
    clearTimeout(state.tokenTimer);
    const due = state.tokens.nextRefreshAt();
    if (due === undefined) return;
    const resync = this.settings.tokenResyncMs ?? TOKEN_RESYNC_MS;
    const delay = Math.max(0, Math.min(due - state.tokens.now(), resync));
    state.tokenTimer = setTimeout(() => {
      if (this.pods.get(uid) !== state) return;
      this.refreshVolumes(state);
      this.scheduleTokenRefresh(uid, state);
    }, delay);
    state.tokenTimer.unref();
  }

  private refreshVolumes(state: PodState, onlyFor?: Set<string>): void {
    this.watchedKeys = undefined;
    const ctx = this.context(state.pod, state.tokens);
    for (const volume of state.volumes.values()) {
      if (!volume.refresh || (onlyFor && !volume.deps.some((k) => onlyFor.has(k)))) continue;
      try {
        volume.refresh(ctx);
      } catch {
        // Kept as it was; the next change of its sources tries again.
      }
    }
  }

  private podState(pod: JsonObject, podDir: string): PodState {
    const uid = uidOf(pod);
    const known = this.pods.get(uid);
    if (known && known.podDir === podDir) return known;
    const volumes = [...(((pod.spec as JsonObject | undefined)?.volumes ?? []) as JsonObject[])];
    if (automountsServiceAccount(pod, this.reader))
      volumes.push({ name: SERVICE_ACCOUNT_VOLUME, projected: SERVICE_ACCOUNT_SOURCE });
    // A failure throws before anything is remembered: the next prepare sets the pod up again.
    clearTimeout(known?.tokenTimer);
    const tokens = new PodTokens(this.settings.podTokens, pod);
    const state: PodState = {
      podDir,
      pod,
      volumes: setUpPodVolumes(volumes, podDir, this.settings.stateDir, this.context(pod, tokens)),
      tokens,
    };
    this.pods.set(uid, state);
    this.watchedKeys = undefined;
    this.scheduleTokenRefresh(uid, state);
    this.watcher ??= this.kube.storage.watch('/', this.kube.storage.currentRevision(), (c) => this.observe(c));
    return state;
  }

  /** Runs inside the storage write: only notes what changed. */
  private observe(change: Change): void {
    this.watchedKeys ??= new Set(
      [...this.pods.values()].flatMap((state) => [...state.volumes.values()].flatMap((v) => v.deps)),
    );
    if (!this.watchedKeys.has(change.key)) return;
    let changed: JsonObject | undefined;
    for (const [uid, state] of this.pods) {
      const affected = [...state.volumes.values()].some((v) => v.deps.includes(change.key));
      if (!affected) continue;
      changed ??= JSON.parse(change.json) as JsonObject;
      // The pod itself: its labels and annotations feed downwardAPI files.
      if (change.type !== 'DELETED' && uidOf(changed) === uid) state.pod = changed;
      let keys = this.pending.get(uid);
      if (!keys) this.pending.set(uid, (keys = new Set()));
      keys.add(change.key);
    }
    if (this.pending.size > 0) this.flushing ??= setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushing = undefined;
    const pending = [...this.pending];
    this.pending.clear();
    for (const [uid, keys] of pending) {
      const state = this.pods.get(uid);
      if (state) this.refreshVolumes(state, keys);
    }
  }
}
