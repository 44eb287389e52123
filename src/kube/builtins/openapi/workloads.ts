// apps/v1 and batch/v1 workloads, core/v1 ReplicationController and PodTemplate, and the
// autoscaling/v1 Scale subresource. Specs are closed (every field of k8s.io/api); statuses are open.
import {
  APPS,
  AUTOSCALING,
  BATCH,
  CORE,
  INT_OR_STRING,
  META,
  bool,
  int32,
  int64,
  keyedList,
  list,
  object,
  objectMetaRef,
  oneOf,
  openObject,
  ref,
  str,
  stringMap,
  typeMeta,
  type Schema,
} from './schema.ts';

const kindModel = (kind: string, description: string, spec: string, status: Schema): Schema =>
  object(description, {
    ...typeMeta(kind),
    metadata: objectMetaRef(),
    spec: ref(spec, `Desired behavior of the ${kind}.`),
    status,
  });

const selector = (): Schema =>
  ref(
    `${META}.LabelSelector`,
    'Label query over the pods the controller owns. Must match the template labels. Immutable in apps/v1.',
  );
const template = (): Schema => ref(`${CORE}.PodTemplateSpec`, 'The pods to create.');
const replicas = (): Schema => int32('Desired number of pods. Default 1.');
const minReadySeconds = (): Schema =>
  int32('Seconds a new pod must be ready, without crashing, to count as available. Default 0.');
const revisionHistoryLimit = (): Schema => int32('Old revisions to keep for rollback. Default 10.');
const CONDITION_TIMES: Record<string, string> = {
  lastProbeTime: 'When the condition was last probed.',
  lastUpdateTime: 'When the condition was last updated.',
  lastTransitionTime: 'When the condition last changed status.',
};
/** A workload condition in its Go field order: type, status, the kind's timestamps, reason, message. */
const conditions = (...times: string[]): Schema =>
  keyedList(
    openObject('A condition.', {
      type: str('Type of the condition.'),
      status: oneOf('Status of the condition.', ['True', 'False', 'Unknown']),
      ...Object.fromEntries(times.map((t) => [t, ref(`${META}.Time`, CONDITION_TIMES[t])])),
      reason: str('Machine-readable reason for the last transition.'),
      message: str('Human-readable details of the last transition.'),
    }),
    'Latest observations of the state.',
    'type',
  );
const ROLLING_STATUS_FIELDS: Record<string, Schema> = {
  observedGeneration: int64('The generation the controller last acted on.'),
  replicas: int32('Number of pods.'),
  fullyLabeledReplicas: int32('Pods whose labels match the template.'),
  readyReplicas: int32('Number of ready pods.'),
  currentReplicas: int32('Pods at currentRevision.'),
  updatedReplicas: int32('Pods at the current template.'),
  currentRevision: str('Revision of the current pods.'),
  updateRevision: str('Revision being rolled out.'),
  availableReplicas: int32('Number of available pods.'),
  unavailableReplicas: int32('Pods not yet available.'),
  collisionCount: int32('Count of hash collisions, used to name the next revision.'),
  conditions: conditions('lastTransitionTime'),
};
/** A workload's status with `fields` in its Go struct's order (k8s.io/api/apps/v1/types.go). */
const rollingStatus = (what: string, fields: string[], conditionsModel?: Schema): Schema =>
  openObject(
    `Most recently observed status of the ${what}. Read-only.`,
    Object.fromEntries(
      fields.map((f) => [f, f === 'conditions' && conditionsModel ? conditionsModel : ROLLING_STATUS_FIELDS[f]]),
    ),
  );

export const workloadModels: Record<string, Schema> = {
  [`${APPS}.Deployment`]: kindModel(
    'Deployment',
    'Deployment enables declarative updates for pods through ReplicaSets.',
    `${APPS}.DeploymentSpec`,
    rollingStatus(
      'deployment',
      [
        'observedGeneration',
        'replicas',
        'updatedReplicas',
        'readyReplicas',
        'availableReplicas',
        'unavailableReplicas',
        'conditions',
        'collisionCount',
      ],
      conditions('lastUpdateTime', 'lastTransitionTime'),
    ),
  ),
  [`${APPS}.DeploymentSpec`]: object(
    'Desired behavior of a Deployment.',
    {
      replicas: replicas(),
      selector: selector(),
      template: template(),
      strategy: ref(`${APPS}.DeploymentStrategy`, 'How old pods are replaced by new ones.'),
      minReadySeconds: minReadySeconds(),
      revisionHistoryLimit: revisionHistoryLimit(),
      paused: bool('Pause the rollout.'),
      progressDeadlineSeconds: int32(
        'Seconds after which a rollout that makes no progress is reported failed. Default 600.',
      ),
    },
    ['selector', 'template'],
  ),
  [`${APPS}.DeploymentStrategy`]: object('How a Deployment replaces pods.', {
    type: oneOf('Strategy type. Default RollingUpdate.', ['Recreate', 'RollingUpdate']),
    rollingUpdate: object('Rolling update parameters, for type RollingUpdate.', {
      maxUnavailable: ref(
        INT_OR_STRING,
        'Pods (number or percentage) that may be unavailable during the update. Default 25%.',
      ),
      maxSurge: ref(
        INT_OR_STRING,
        'Pods (number or percentage) that may be created above the desired count. Default 25%.',
      ),
    }),
  }),
  [`${APPS}.ReplicaSet`]: kindModel(
    'ReplicaSet',
    'ReplicaSet keeps a number of identical pods running.',
    `${APPS}.ReplicaSetSpec`,
    rollingStatus('replica set', [
      'replicas',
      'fullyLabeledReplicas',
      'readyReplicas',
      'availableReplicas',
      'observedGeneration',
      'conditions',
    ]),
  ),
  [`${APPS}.ReplicaSetSpec`]: object(
    'Desired behavior of a ReplicaSet.',
    { replicas: replicas(), minReadySeconds: minReadySeconds(), selector: selector(), template: template() },
    ['selector'],
  ),
  [`${CORE}.ReplicationController`]: kindModel(
    'ReplicationController',
    'ReplicationController keeps a number of identical pods running; ReplicaSet with an equality-based selector.',
    `${CORE}.ReplicationControllerSpec`,
    rollingStatus('replication controller', [
      'replicas',
      'fullyLabeledReplicas',
      'readyReplicas',
      'availableReplicas',
      'observedGeneration',
      'conditions',
    ]),
  ),
  [`${CORE}.ReplicationControllerSpec`]: object('Desired behavior of a ReplicationController.', {
    replicas: replicas(),
    minReadySeconds: minReadySeconds(),
    selector: stringMap(
      'Labels the pods must carry to be counted; defaults to the template labels. Must match the template labels.',
    ),
    template: template(),
  }),
  [`${CORE}.PodTemplate`]: object('PodTemplate describes a template for creating copies of a predefined pod.', {
    ...typeMeta('PodTemplate'),
    metadata: objectMetaRef(),
    template: template(),
  }),
  [`${APPS}.StatefulSet`]: kindModel(
    'StatefulSet',
    'StatefulSet runs pods with stable identities and per-pod storage.',
    `${APPS}.StatefulSetSpec`,
    rollingStatus('stateful set', [
      'observedGeneration',
      'replicas',
      'readyReplicas',
      'currentReplicas',
      'updatedReplicas',
      'currentRevision',
      'updateRevision',
      'collisionCount',
      'conditions',
      'availableReplicas',
    ]),
  ),
  [`${APPS}.StatefulSetSpec`]: object(
    'Desired behavior of a StatefulSet.',
    {
      replicas: replicas(),
      selector: selector(),
      template: template(),
      volumeClaimTemplates: list(ref(`${CORE}.PersistentVolumeClaim`), 'Claims each pod gets, named <template>-<pod>.'),
      serviceName: str('Headless service giving the pods their network identity.'),
      podManagementPolicy: oneOf('How pods are created and deleted. Default OrderedReady.', [
        'OrderedReady',
        'Parallel',
      ]),
      updateStrategy: object('How pods are updated.', {
        type: oneOf('Update strategy. Default RollingUpdate.', ['RollingUpdate', 'OnDelete']),
        rollingUpdate: object('Rolling update parameters.', {
          partition: int32('Pods with an ordinal at or above this are updated.'),
          maxUnavailable: ref(INT_OR_STRING, 'Pods that may be unavailable during the update.'),
        }),
      }),
      revisionHistoryLimit: revisionHistoryLimit(),
      minReadySeconds: minReadySeconds(),
      persistentVolumeClaimRetentionPolicy: object('What happens to the claims when pods go.', {
        whenDeleted: oneOf('When the StatefulSet is deleted.', ['Retain', 'Delete']),
        whenScaled: oneOf('When the StatefulSet is scaled down.', ['Retain', 'Delete']),
      }),
      ordinals: object('Pod ordinal numbering.', { start: int32('First ordinal. Default 0.') }),
    },
    ['selector', 'template'],
  ),
  [`${APPS}.DaemonSet`]: kindModel(
    'DaemonSet',
    'DaemonSet runs a copy of a pod on every eligible node.',
    `${APPS}.DaemonSetSpec`,
    // DaemonSetStatus's Go field order (k8s.io/api/apps/v1/types.go).
    openObject('Most recently observed status of the daemon set. Read-only.', {
      currentNumberScheduled: int32('Nodes running at least one pod.'),
      numberMisscheduled: int32('Nodes running the pod that should not.'),
      desiredNumberScheduled: int32('Nodes that should run the pod.'),
      numberReady: int32('Nodes whose pod is ready.'),
      observedGeneration: int64('The generation the controller last acted on.'),
      updatedNumberScheduled: int32('Nodes running the updated pod.'),
      numberAvailable: int32('Nodes whose pod is available.'),
      numberUnavailable: int32('Nodes whose pod is not available.'),
      collisionCount: int32('Count of hash collisions, used to name the next revision.'),
      conditions: conditions('lastTransitionTime'),
    }),
  ),
  [`${APPS}.DaemonSetSpec`]: object(
    'Desired behavior of a DaemonSet.',
    {
      selector: selector(),
      template: template(),
      updateStrategy: object('How pods are updated.', {
        type: oneOf('Update strategy. Default RollingUpdate.', ['RollingUpdate', 'OnDelete']),
        rollingUpdate: object('Rolling update parameters.', {
          maxUnavailable: ref(INT_OR_STRING, 'Nodes whose pod may be unavailable during the update.'),
          maxSurge: ref(INT_OR_STRING, 'Nodes that may run an extra updated pod during the update.'),
        }),
      }),
      minReadySeconds: minReadySeconds(),
      revisionHistoryLimit: revisionHistoryLimit(),
    },
    ['selector', 'template'],
  ),
  [`${BATCH}.Job`]: kindModel(
    'Job',
    'Job runs pods until a number of them complete successfully.',
    `${BATCH}.JobSpec`,
    // JobStatus's Go field order (k8s.io/api/batch/v1/types.go).
    openObject('Most recently observed status of the job. Read-only.', {
      conditions: conditions('lastProbeTime', 'lastTransitionTime'),
      startTime: ref(`${META}.Time`, 'When the job started.'),
      completionTime: ref(`${META}.Time`, 'When the job completed.'),
      active: int32('Running pods.'),
      succeeded: int32('Pods that succeeded.'),
      failed: int32('Pods that failed.'),
    }),
  ),
  [`${BATCH}.JobSpec`]: object(
    'Desired behavior of a Job.',
    {
      parallelism: int32('Most pods running at once. Default 1.'),
      completions: int32('Successful pods needed. Default 1.'),
      activeDeadlineSeconds: int64('Seconds the job may run before it is terminated.'),
      podFailurePolicy: openObject('How pod failures count against backoffLimit.'),
      successPolicy: openObject('When an indexed job counts as succeeded early.'),
      backoffLimit: int32('Retries before the job fails. Default 6.'),
      backoffLimitPerIndex: int32('Retries per index, for indexed jobs.'),
      maxFailedIndexes: int32('Failed indexes tolerated before the job fails.'),
      selector: ref(`${META}.LabelSelector`, 'Label query over the pods; generated unless manualSelector is set.'),
      manualSelector: bool('Use the given selector instead of a generated one.'),
      template: template(),
      ttlSecondsAfterFinished: int32('Seconds after which a finished job is deleted.'),
      completionMode: oneOf('How completions are tracked. Default NonIndexed.', ['NonIndexed', 'Indexed']),
      suspend: bool('Suspend the job: no pods are created and running ones are deleted.'),
      podReplacementPolicy: oneOf('When failed pods are replaced.', ['TerminatingOrFailed', 'Failed']),
      managedBy: str('Controller that manages the job.'),
      scheduling: openObject('Gang scheduling settings.'),
    },
    ['template'],
  ),
  [`${AUTOSCALING}.Scale`]: object('Scale is the scale subresource of a scalable resource.', {
    ...typeMeta('Scale'),
    metadata: objectMetaRef(),
    spec: object('Desired scale.', { replicas: int32('Desired number of instances.') }),
    status: object('Current scale.', {
      replicas: int32('Actual number of instances.'),
      selector: str('Label selector of the pods, in string form.'),
    }),
  }),
};
