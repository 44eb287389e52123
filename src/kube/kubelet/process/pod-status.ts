// The pod status a process pod's containers add up to, as the kubelet's generateAPIPodStatus
// writes it: container statuses in kube's shape, the phase (pod-phase.ts; init containers first),
// and the conditions PodReadyToStartContainers, Initialized, Ready and ContainersReady with kube's
// reasons (pkg/kubelet/status/generate.go).
import { createHash } from 'node:crypto';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { podPhase, readinessConditions } from '../pod-phase.ts';

export type ContainerState =
  | { waiting: { reason: string; message?: string } }
  | { running: { startedAt: string } }
  | { terminated: TerminatedState };

export interface TerminatedState {
  exitCode: number;
  reason: string;
  message?: string;
  startedAt: string;
  finishedAt: string;
  containerID?: string;
}

/** What the kubelet knows of one container; `kind` says where it sits in the pod spec. */
export interface ContainerRecord {
  name: string;
  kind: 'init' | 'sidecar' | 'app';
  image: string;
  state: ContainerState;
  lastState: { terminated?: TerminatedState };
  restartCount: number;
  containerID?: string;
  ready: boolean;
  started: boolean;
}

function imageId(image: string): string {
  const repo = image.split('@')[0];
  const digest = createHash('sha256').update(image).digest('hex');
  return `${repo.includes('/') ? repo : `docker.io/library/${repo}`}@sha256:${digest}`;
}

export function containerStatus(c: ContainerRecord): JsonObject {
  return {
    name: c.name,
    state: c.state as unknown as JsonObject,
    lastState: c.lastState as unknown as JsonObject,
    ready: c.ready,
    restartCount: c.restartCount,
    image: c.image,
    imageID: imageId(c.image),
    ...(c.containerID ? { containerID: c.containerID } : {}),
    started: c.started,
  };
}

/** Init containers not done yet: regular ones not exited 0, sidecars not started. */
export function incompleteInits(containers: ContainerRecord[]): string[] {
  return containers
    .filter((c) => c.kind !== 'app')
    .filter((c) =>
      c.kind === 'sidecar' ? !c.started : !('terminated' in c.state && c.state.terminated.exitCode === 0),
    )
    .map((c) => c.name);
}

/** getPhase: Pending while init containers run; a regular init container failing under Never fails the pod. */
export function processPodPhase(restartPolicy: string, containers: ContainerRecord[]): string {
  const inits = containers.filter((c) => c.kind === 'init');
  const failedInit = inits.some((c) => 'terminated' in c.state && c.state.terminated.exitCode !== 0);
  if (failedInit && restartPolicy === 'Never') return 'Failed';
  if (incompleteInits(containers).length > 0) return 'Pending';
  return podPhase(restartPolicy, containers.filter((c) => c.kind === 'app').map(containerStatus));
}

const CONDITION_ORDER = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady'];

export function processPodConditions(
  previous: JsonObject[],
  phase: string,
  containers: ContainerRecord[],
  now: string,
): JsonObject[] {
  const byType = new Map(previous.map((c) => [String(c.type), c]));
  const base = CONDITION_ORDER.map((type) => byType.get(type) ?? { type, status: 'Unknown', lastProbeTime: null });
  // Sidecars count towards ContainersReady, as in kube.
  const readiness = containers.filter((c) => c.kind !== 'init').map(containerStatus);
  const next = readinessConditions(base, phase, readiness, now).map((c) => {
    if (c.type !== 'Initialized') return c;
    const incomplete = incompleteInits(containers);
    const want =
      incomplete.length === 0
        ? { status: 'True' }
        : {
            status: 'False',
            reason: 'ContainersNotInitialized',
            message: `containers with incomplete status: [${incomplete.join(' ')}]`,
          };
    if (c.status === want.status && c.reason === want.reason && c.message === want.message) return c;
    return {
      type: 'Initialized',
      status: want.status,
      lastProbeTime: null,
      lastTransitionTime: c.status === want.status ? c.lastTransitionTime : now,
      ...(want.reason ? { reason: want.reason, message: want.message } : {}),
    };
  });
  const others = previous.filter((c) => !CONDITION_ORDER.includes(String(c.type)));
  return [...next, ...others];
}
