// Defaults for the kinds that carry a pod template: apps/v1 Deployment, ReplicaSet, DaemonSet and
// StatefulSet, batch/v1 Job and CronJob, core/v1 PodTemplate and ReplicationController. Each also
// writes the status fields that Go's encoder emits even when zero (non-omitempty ints), so a
// freshly created object reads back exactly as kube-apiserver returns it.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { defaultPodTemplate, defaultPvcSpec } from './pod.ts';
import { ensureObj, isEmptyString, isNil, obj, objects, setIfEmpty, setIfNil, str } from '../json.ts';

/** Status fields without omitempty, per kind: what a status nobody has written yet looks like. */
const ZERO_STATUS: Record<string, JsonObject> = {
  Deployment: {},
  ReplicaSet: { replicas: 0 },
  DaemonSet: { currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 },
  StatefulSet: { availableReplicas: 0, replicas: 0 },
  Job: {},
  CronJob: {},
  ReplicationController: { replicas: 0 },
};

export function zeroWorkloadStatus(kind: string): JsonObject | undefined {
  const z = ZERO_STATUS[kind];
  return z ? { ...z } : undefined;
}

function fillStatus(o: JsonObject, kind: string): void {
  const status = ensureObj(o, 'status');
  for (const [k, v] of Object.entries(ZERO_STATUS[kind] ?? {})) if (v !== undefined) setIfNil(status, k, v);
}

function template(spec: JsonObject): void {
  defaultPodTemplate(ensureObj(spec, 'template'));
}

function defaultDeployment(o: JsonObject): void {
  const spec = ensureObj(o, 'spec');
  setIfNil(spec, 'replicas', 1);
  const strategy = ensureObj(spec, 'strategy');
  setIfEmpty(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const ru = ensureObj(strategy, 'rollingUpdate');
    setIfNil(ru, 'maxUnavailable', '25%');
    setIfNil(ru, 'maxSurge', '25%');
  }
  setIfNil(spec, 'revisionHistoryLimit', 10);
  setIfNil(spec, 'progressDeadlineSeconds', 600);
  template(spec);
}

function defaultReplicaSet(o: JsonObject): void {
  const spec = ensureObj(o, 'spec');
  setIfNil(spec, 'replicas', 1);
  template(spec);
}

function defaultDaemonSet(o: JsonObject): void {
  const spec = ensureObj(o, 'spec');
  const strategy = ensureObj(spec, 'updateStrategy');
  setIfEmpty(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const ru = ensureObj(strategy, 'rollingUpdate');
    setIfNil(ru, 'maxUnavailable', 1);
    setIfNil(ru, 'maxSurge', 0);
  }
  setIfNil(spec, 'revisionHistoryLimit', 10);
  template(spec);
}

function defaultStatefulSet(o: JsonObject): void {
  const spec = ensureObj(o, 'spec');
  setIfEmpty(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = ensureObj(spec, 'updateStrategy');
  if (isEmptyString(strategy, 'type')) {
    strategy.type = 'RollingUpdate';
    setIfNil(strategy, 'rollingUpdate', {});
  }
  // A RollingUpdate the user wrote without rollingUpdate stays without it (and without partition).
  const ru = obj(strategy, 'rollingUpdate');
  if (strategy.type === 'RollingUpdate' && ru) setIfNil(ru, 'partition', 0);
  const retention = ensureObj(spec, 'persistentVolumeClaimRetentionPolicy');
  setIfEmpty(retention, 'whenDeleted', 'Retain');
  setIfEmpty(retention, 'whenScaled', 'Retain');
  setIfNil(spec, 'replicas', 1);
  setIfNil(spec, 'revisionHistoryLimit', 10);
  template(spec);
  for (const claim of objects(spec, 'volumeClaimTemplates')) {
    // Embedded objects are written with their TypeMeta, and with the PVC defaults.
    claim.apiVersion = 'v1';
    claim.kind = 'PersistentVolumeClaim';
    const md = ensureObj(claim, 'metadata');
    if (!('creationTimestamp' in md)) md.creationTimestamp = null;
    defaultPvcSpec(ensureObj(claim, 'spec'));
    setIfEmpty(ensureObj(claim, 'status'), 'phase', 'Pending');
  }
}

function defaultJob(o: JsonObject): void {
  const spec = ensureObj(o, 'spec');
  if (isNil(spec, 'completions') && isNil(spec, 'parallelism')) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setIfNil(spec, 'parallelism', 1);
  if (isNil(spec, 'backoffLimit')) spec.backoffLimit = isNil(spec, 'backoffLimitPerIndex') ? 6 : 2147483647;
  setIfNil(spec, 'completionMode', 'NonIndexed');
  setIfNil(spec, 'suspend', false);
  // JobPodReplacementPolicy is on by default since 1.29.
  setIfNil(spec, 'podReplacementPolicy', isNil(spec, 'podFailurePolicy') ? 'TerminatingOrFailed' : 'Failed');
  template(spec);
  copyTemplateLabels(o, spec);
}

/** SetDefaults_Job: a Job without labels takes its template's. */
function copyTemplateLabels(o: JsonObject, spec: JsonObject): void {
  const labels = obj(obj(obj(spec, 'template'), 'metadata'), 'labels');
  const md = ensureObj(o, 'metadata');
  const own = obj(md, 'labels');
  if (labels && (!own || Object.keys(own).length === 0)) md.labels = { ...labels };
}

/**
 * The job strategy's selector generation on create: template labels and a selector on the
 * Job's uid, unless the user asked for a manual selector. Needs metadata.uid to be set.
 */
export function generateJobSelector(o: JsonObject): void {
  const md = obj(o, 'metadata');
  const uid = str(md, 'uid');
  const name = str(md, 'name') ?? '';
  const spec = obj(o, 'spec');
  if (!uid || !spec || spec.manualSelector === true) return;
  const tmd = ensureObj(ensureObj(spec, 'template'), 'metadata');
  const labels = ensureObj(tmd, 'labels');
  for (const k of ['job-name', 'batch.kubernetes.io/job-name']) if (!(k in labels)) labels[k] = name;
  for (const k of ['controller-uid', 'batch.kubernetes.io/controller-uid']) if (!(k in labels)) labels[k] = uid;
  const matchLabels = ensureObj(ensureObj(spec, 'selector'), 'matchLabels');
  if (!('batch.kubernetes.io/controller-uid' in matchLabels)) matchLabels['batch.kubernetes.io/controller-uid'] = uid;
  copyTemplateLabels(o, spec);
}

function defaultCronJob(o: JsonObject): void {
  const spec = ensureObj(o, 'spec');
  setIfEmpty(spec, 'concurrencyPolicy', 'Allow');
  setIfNil(spec, 'suspend', false);
  setIfNil(spec, 'successfulJobsHistoryLimit', 3);
  setIfNil(spec, 'failedJobsHistoryLimit', 1);
  const jobTemplate = ensureObj(spec, 'jobTemplate');
  const md = ensureObj(jobTemplate, 'metadata');
  if (!('creationTimestamp' in md)) md.creationTimestamp = null;
  template(ensureObj(jobTemplate, 'spec'));
}

function defaultReplicationController(o: JsonObject): void {
  const spec = ensureObj(o, 'spec');
  setIfNil(spec, 'replicas', 1);
  const labels = obj(obj(obj(spec, 'template'), 'metadata'), 'labels');
  if (labels) {
    const selector = obj(spec, 'selector');
    if (!selector || Object.keys(selector).length === 0) spec.selector = { ...labels };
    const md = ensureObj(o, 'metadata');
    const own = obj(md, 'labels');
    if (!own || Object.keys(own).length === 0) md.labels = { ...labels };
  }
  if (obj(spec, 'template')) template(spec);
}

const WORKLOADS: Record<string, (o: JsonObject) => void> = {
  'apps/Deployment': defaultDeployment,
  'apps/ReplicaSet': defaultReplicaSet,
  'apps/DaemonSet': defaultDaemonSet,
  'apps/StatefulSet': defaultStatefulSet,
  'batch/Job': defaultJob,
  'batch/CronJob': defaultCronJob,
  '/ReplicationController': defaultReplicationController,
  '/PodTemplate': (o) => defaultPodTemplate(ensureObj(o, 'template')),
};

/** Returns false when the kind is not a workload handled here. */
export function defaultWorkload(group: string, kind: string, o: JsonObject): boolean {
  const fn = WORKLOADS[`${group}/${kind}`];
  if (!fn) return false;
  fn(o);
  if (kind in ZERO_STATUS) fillStatus(o, kind);
  return true;
}
