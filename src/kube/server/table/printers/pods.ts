// Pods as kube-apiserver prints them: READY n/m, a STATUS that prefers the most telling
// container reason (ContainerCreating, CrashLoopBackOff, Init:0/1, Completed, Terminating) and
// RESTARTS with the age of the last restart.
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import { AGE, col, NAME, wide } from '../columns.ts';
import { humanDuration } from '../../../../apimachinery/time/index.ts';
import { ageOf, asInt, asList, asObj, asStr, at, conditionTrue, meta, nameOf, timeMs } from '../fields.ts';
import type { Cell, Printer, RowCondition } from '../types.ts';

const SUCCEEDED: RowCondition[] = [
  { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
];
const FAILED: RowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];

/** A sidecar: an init container with restartPolicy Always keeps running beside the app containers. */
function restartable(container: JsonObject | undefined): boolean {
  return container?.restartPolicy === 'Always';
}

function terminatedReason(t: JsonObject, prefix: string): string {
  if (asStr(t.reason)) return prefix + asStr(t.reason);
  if (asInt(t.signal) !== 0) return `${prefix}Signal:${asInt(t.signal)}`;
  return `${prefix}ExitCode:${asInt(t.exitCode)}`;
}

interface PodSummary {
  ready: number;
  total: number;
  reason: string;
  restarts: number;
  lastRestartMs?: number;
}

export function summarizePod(pod: JsonObject): PodSummary {
  const spec = asObj(pod.spec);
  const status = asObj(pod.status);
  const phase = asStr(status.phase);
  let reason = asStr(status.reason) || phase;
  for (const c of asList(status.conditions)) {
    if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }
  const initSpecs = new Map(asList(spec.initContainers).map((c) => [asStr(c.name), c]));
  let total = asList(spec.containers).length;
  for (const c of initSpecs.values()) if (restartable(c)) total++;

  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart: number | undefined;
  let lastSidecarRestart: number | undefined;
  const later = (a: number | undefined, b: number | undefined) =>
    b !== undefined && (a === undefined || b > a) ? b : a;

  let initializing = false;
  const initStatuses = asList(status.initContainerStatuses);
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i];
    const state = asObj(cs.state);
    const finished = timeMs(at(cs, 'lastState', 'terminated', 'finishedAt'));
    restarts += asInt(cs.restartCount);
    lastRestart = later(lastRestart, finished);
    const sidecar = restartable(initSpecs.get(asStr(cs.name)));
    if (sidecar) {
      sidecarRestarts += asInt(cs.restartCount);
      lastSidecarRestart = later(lastSidecarRestart, finished);
    }
    const terminated = state.terminated === undefined ? undefined : asObj(state.terminated);
    const waiting = state.waiting === undefined ? undefined : asObj(state.waiting);
    if (terminated && asInt(terminated.exitCode) === 0) continue;
    if (sidecar && cs.started === true) {
      if (cs.ready === true) ready++;
      continue;
    }
    if (terminated) reason = terminatedReason(terminated, 'Init:');
    else if (waiting && asStr(waiting.reason) && waiting.reason !== 'PodInitializing')
      reason = `Init:${asStr(waiting.reason)}`;
    else reason = `Init:${i}/${asList(spec.initContainers).length}`;
    initializing = true;
    break;
  }

  if (!initializing || conditionTrue(status.conditions, 'Initialized')) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = asList(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i];
      const state = asObj(cs.state);
      restarts += asInt(cs.restartCount);
      lastRestart = later(lastRestart, timeMs(at(cs, 'lastState', 'terminated', 'finishedAt')));
      const waiting = state.waiting === undefined ? undefined : asObj(state.waiting);
      const terminated = state.terminated === undefined ? undefined : asObj(state.terminated);
      if (waiting && asStr(waiting.reason)) reason = asStr(waiting.reason);
      else if (terminated) reason = terminatedReason(terminated, '');
      else if (cs.ready === true && state.running !== undefined) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      reason = conditionTrue(status.conditions, 'Ready') ? 'Running' : 'NotReady';
    }
  }

  const deleting = meta(pod).deletionTimestamp !== undefined && meta(pod).deletionTimestamp !== null;
  if (deleting && status.reason === 'NodeLost') reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';
  return { ready, total, reason, restarts, lastRestartMs: lastRestart };
}

function readinessGates(pod: JsonObject): string {
  const gates = asList(at(pod, 'spec', 'readinessGates'));
  if (gates.length === 0) return '<none>';
  const conditions = asList(at(pod, 'status', 'conditions'));
  let met = 0;
  for (const g of gates) {
    if (conditions.find((c) => c.type === g.conditionType)?.status === 'True') met++;
  }
  return `${met}/${gates.length}`;
}

export const podPrinter: Printer = {
  columns: [
    NAME,
    col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    col('Status', 'string', 'The aggregate status of the containers in this pod.'),
    col(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    AGE,
    wide('IP', 'string', 'podIP address allocated to the pod. Routable at least within the cluster.'),
    wide('Node', 'string', 'NodeName indicates in which node this pod is scheduled.'),
    wide('Nominated Node', 'string', 'nominatedNodeName is set when this pod preempts other pods on the node.'),
    wide('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness.'),
  ],
  cells(pod, now): Cell[] {
    const s = summarizePod(pod);
    const restarts =
      s.restarts !== 0 && s.lastRestartMs !== undefined
        ? `${s.restarts} (${humanDuration(now - s.lastRestartMs)} ago)`
        : String(s.restarts);
    // As in kube's v1 conversion, podIP wins over podIPs[0] when both are set.
    const ip = asStr(at(pod, 'status', 'podIP')) || asStr(asList(at(pod, 'status', 'podIPs'))[0]?.ip) || '<none>';
    return [
      nameOf(pod),
      `${s.ready}/${s.total}`,
      s.reason,
      restarts,
      ageOf(pod, now),
      ip,
      asStr(at(pod, 'spec', 'nodeName')) || '<none>',
      asStr(at(pod, 'status', 'nominatedNodeName')) || '<none>',
      readinessGates(pod),
    ];
  },
  conditions(pod) {
    const phase = at(pod, 'status', 'phase');
    return phase === 'Succeeded' ? SUCCEEDED : phase === 'Failed' ? FAILED : undefined;
  },
};
